// The isolation's client against a real worker: padtune_fault_cli (the padtune CLI with the
// faulting instantiations of tests/fault), on the host backend. A fault, a hang and an error each
// cost what they should, a worker stopped from outside stops the run, and a round trip is cheap.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>

#include "padtune/isolate/worker.hpp"
#include "padtune/measure/workspace.hpp"

namespace padtune::tuner {
namespace {

worker_client host_worker(double timeout_seconds) {
  // Under ASan (preset sanitize) the deliberate SIGSEGV would be reported and turned into an abort.
  const std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
  if (asan.find("handle_segv=0") == std::string::npos)
    ::setenv("ASAN_OPTIONS", (asan + (asan.empty() ? "" : ":") + "handle_segv=0").c_str(), 1);
  return worker_client({PADTUNE_FAULT_CLI, "__worker", "--backend", "host"}, timeout_seconds);
}

nlohmann::json request_for(const std::string& op, const std::string& id = "") {
  nlohmann::json r = {{"op", op}, {"dtype", "f32"}, {"shape", {2, 4, 300, 3, 5}}};
  if (!id.empty()) r["id"] = id;
  return r;
}

const std::string good = "constant_pad1d_backward__f32__flat__bo1024__t256__w16";

TEST(Worker, ReportsItsDeviceAndVerifies) {
  worker_client w = host_worker(10);
  EXPECT_EQ(w.device().backend, "host");
  EXPECT_EQ(w.request(request_for("verify", good), 0).at("mismatch"), "");
  EXPECT_EQ(w.starts(), 1);
}

TEST(Worker, AFaultCostsOneWorkerAndTheNextRequestGetsAFreshOne) {
  worker_client w = host_worker(10);
  try {
    w.request(request_for("verify", "constant_pad1d_backward__f32__fault__illegal_address"), 0);
    FAIL() << "no fault";
  } catch (const candidate_fault& f) {
    EXPECT_EQ(f.status, "fault");
    EXPECT_NE(std::string(f.what()).find("signal 11"), std::string::npos) << f.what();
  }
  EXPECT_EQ(w.request(request_for("verify", good), 0).at("mismatch"), "");
  EXPECT_EQ(w.starts(), 2);
}

TEST(Worker, AHangIsKilledAtItsDeadline) {
  worker_client w = host_worker(0.3);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    w.request(request_for("verify", "constant_pad1d_backward__f32__fault__hang"), 0.2);
    FAIL() << "no timeout";
  } catch (const candidate_fault& f) {
    EXPECT_EQ(f.status, "timeout");
    EXPECT_EQ(f.limit_seconds, 0.3);
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(waited, 0.45);
  EXPECT_LT(waited, 3.0);
  EXPECT_EQ(w.pid(), -1);
}

TEST(Worker, AnErrorReplyLeavesTheWorkerRunning) {
  worker_client w = host_worker(10);
  EXPECT_THROW(w.request(request_for("verify", "no_such_instantiation"), 0), std::runtime_error);
  EXPECT_THROW(w.request({{"op", "open"}, {"dtype", "f32"}, {"shape", {1, 1, 4, -10, 2}}}, 0), std::runtime_error);
  EXPECT_EQ(w.request(request_for("verify", good), 0).at("mismatch"), "");
  EXPECT_EQ(w.starts(), 1);
}

TEST(Worker, AWorkerStoppedFromOutsideIsNoCandidateFault) {
  worker_client w = host_worker(10);
  w.device();
  ASSERT_GT(w.pid(), 0);
  ::kill(w.pid(), SIGTERM);
  try {
    w.request(request_for("open"), 0);
    FAIL() << "no error";
  } catch (const candidate_fault& f) {
    FAIL() << "recorded as the candidate's fault: " << f.what();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("from outside"), std::string::npos) << e.what();
  }
}

// The settings a request carries are the ones the worker times by: a screen's standard-error target
// included (once lost on the way, every screened candidate took its 10 samples on a GPU).
TEST(Worker, TimesByTheRuleItIsSent) {
  worker_client w = host_worker(10);
  measure_settings screen;
  screen.warmup = 1, screen.hot_too = false;
  screen.rule = stop_rule{3, 10, 0, 10, 1e6};  // any median will do: three samples, even on a loaded machine
  nlohmann::json req = request_for("time", good);
  req["settings"] = to_json(screen);
  EXPECT_EQ(timing_from_json(w.request(req, 10).at("timing"), "reply").cold.samples, 3);
  screen.rule.target_standard_error = 0;  // no target: to the maximum
  req["settings"] = to_json(screen);
  EXPECT_EQ(timing_from_json(w.request(req, 10).at("timing"), "reply").cold.samples, 10);
}

TEST(MeasureSettings, RoundTripsAndTheFullRuleWritesWhatCachesAlwaysHeld) {
  measure_settings m;
  m.warmup = 1, m.hot_too = false, m.rule = stop_rule{3, 10, 0, 0.25, 0.005};
  const measure_settings back = measure_settings_from_json(to_json(m));
  EXPECT_EQ(back.warmup, 1);
  EXPECT_EQ(back.rule.min_samples, 3);
  EXPECT_EQ(back.rule.max_samples, 10);
  EXPECT_EQ(back.rule.target_standard_error, 0.005);
  // A cache resumes only where its header's settings equal the run's, byte for byte: the full rule
  // has no standard-error target, and its JSON keeps the seven keys every committed cache records.
  const nlohmann::json full = to_json(measure_settings{});
  EXPECT_FALSE(full.contains("target_standard_error")) << full.dump();
  EXPECT_EQ(full.size(), 7u) << full.dump();
  EXPECT_EQ(measure_settings_from_json(full).rule.target_standard_error, 0.0);
}

// The cost of isolation per request, beside measurements of 10 to 300 ms each.
TEST(Worker, ARoundTripCostsLittle) {
  worker_client w = host_worker(10);
  w.request(request_for("open"), 0);
  const int n = 500;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) w.request(request_for("open"), 0);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("isolation round trip: %.1f us per request (mean of %d)\n", us, n);
  EXPECT_LT(us, 5000);  // generous: CI machines are shared
}

}  // namespace
}  // namespace padtune::tuner
