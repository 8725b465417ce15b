// The isolated workspace: the workspace interface, served by the worker process (worker.hpp).
#include "worker.hpp"

namespace padtune::tuner {
namespace {

using nlohmann::json;

class isolated_workspace final : public workspace {
 public:
  isolated_workspace(worker_client& worker, dtype type, const shape5& s) : worker_(worker), type_(type), shape_(s) {
    ask({{"op", "open"}}, 0);
  }

  std::string verify(const instantiation& inst) override {
    return ask({{"op", "verify"}, {"id", inst.id}}, 0).at("mismatch").get<std::string>();
  }

  timing time(const instantiation& inst, const measure_settings& s) override {
    return timing_from_json(ask({{"op", "time"}, {"id", inst.id}, {"settings", to_json(s)}}, measuring(s)).at("timing"), inst.id);
  }

  timing time_memcpy(const measure_settings& s) override {
    return timing_from_json(ask({{"op", "time_memcpy"}, {"settings", to_json(s)}}, measuring(s)).at("timing"), "memcpy");
  }

  /// Sticky errors end the worker and come back as candidate_fault; this side never has one.
  std::string failure() const override { return ""; }

 private:
  json ask(json req, double allowance_seconds) {
    req["dtype"] = std::string(name_of(type_));
    req["shape"] = {shape_.B, shape_.C, shape_.L, shape_.pad_left, shape_.pad_right};
    // After a restart the worker first rebuilds the shape's buffers and reference: allow 10 s per
    // GB of payload for that (host emulation is the slow case).
    const double payload = 2.0 * double(shape_.B) * double(shape_.C) * double(shape_.L) * double(size_of(type_));
    return worker_.request(req, allowance_seconds + payload * 1e-8);
  }

  /// What the stop rule lets one timing take: warm-up, then the budget (4x for a slow candidate
  /// short of its minimum samples), cold and hot.
  static double measuring(const measure_settings& s) { return 8 * s.rule.budget_seconds + 1; }

  worker_client& worker_;
  dtype type_;
  shape5 shape_;
};

}  // namespace

std::unique_ptr<workspace> make_isolated_workspace(worker_client& worker, dtype type, const shape5& s) {
  return std::make_unique<isolated_workspace>(worker, type, s);
}

}  // namespace padtune::tuner
