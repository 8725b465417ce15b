// The isolation's client against a real worker: padtune_fault_cli (the padtune CLI with the
// faulting instantiations of tests/fault), on the host backend. A fault, a hang and an error each
// cost what they should, a worker stopped from outside stops the run, and a round trip is cheap.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>

#include "padtune/isolate/worker.hpp"

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
