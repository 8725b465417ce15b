// The isolated workspace: the workspace interface, served by the worker process (worker.hpp).
#include "padtune/isolate/worker.hpp"

namespace padtune::tuner {
namespace {

using nlohmann::json;

class isolated_workspace final : public workspace {
 public:
  isolated_workspace(worker_client& worker, dtype type, const shape5& s)
      : worker_(worker),
        where_({{"dtype", std::string(name_of(type))}, {"shape", {s.B, s.C, s.L, s.pad_left, s.pad_right}}}),
        key_(worker_client::workspace_key(where_)),
        payload_bytes_(2.0 * double(s.B) * double(s.C) * double(s.L) * double(size_of(type))) {
    open();
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
  /// Builds the worker's buffers and reference for this shape (and its CUDA context, after a
  /// restart): 10 s, plus 10 s per GB of payload (host emulation is the slow case).
  void open() { send({{"op", "open"}}, 10 + payload_bytes_ * 1e-8); }

  json ask(json req, double allowance_seconds) {
    if (worker_.open_key() != key_) open();  // a fresh worker after a fault, or another workspace's shape
    return send(std::move(req), allowance_seconds);
  }

  json send(json req, double allowance_seconds) {
    req.update(where_);
    return worker_.request(req, allowance_seconds);
  }

  /// What the stop rule lets one timing take: warm-up, then the budget (4x for a slow candidate
  /// short of its minimum samples), cold and hot.
  static double measuring(const measure_settings& s) { return 8 * s.rule.budget_seconds + 1; }

  worker_client& worker_;
  json where_;       ///< {"dtype", "shape"}, sent with every request
  std::string key_;  ///< worker_client::workspace_key(where_)
  double payload_bytes_;
};

}  // namespace

std::unique_ptr<workspace> make_isolated_workspace(worker_client& worker, dtype type, const shape5& s) {
  return std::make_unique<isolated_workspace>(worker, type, s);
}

}  // namespace padtune::tuner
