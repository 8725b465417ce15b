#pragma once
// Verification and timing of instantiations on one shape, on one backend. A workspace owns the
// shape's buffers: dy (fresh random non-zero data), dx with guard bytes on both sides, and the
// reference's dx, computed once. The tuner knows instantiations only through the registry.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "padtune/registry.hpp"
#include "padtune/table.hpp"
#include "padtune/measure/stats.hpp"

namespace padtune::tuner {

/// Written over dx before a verification run (poison) and around it (guard), by every workspace.
inline constexpr unsigned char poison_byte = 0xA5, guard_byte = 0xCD;

struct measure_settings {
  stop_rule rule;
  int warmup = 3;
  bool l2_cold = true;  ///< flush L2 before every sample (a buffer of twice the L2 size is written)
  bool hot_too = true;  ///< also time without the flush, as a second figure
};

/// One candidate's (or the floor's) numbers on one shape.
struct timing {
  summary cold;  ///< microseconds; L2-cold unless settings.l2_cold is false
  summary hot;   ///< microseconds, L2-hot; zero when not measured
};

class workspace {
 public:
  virtual ~workspace() = default;
  /// "" if inst writes exactly the reference's bytes (dx poisoned first, guards intact, dy unchanged).
  virtual std::string verify(const instantiation& inst) = 0;
  /// Times inst; the time of an instantiation that needs a zeroed dx includes the zeroing.
  virtual timing time(const instantiation& inst, const measure_settings& s) = 0;
  /// Times a device-to-device cudaMemcpyAsync of the same payload (dx's bytes, read and written).
  virtual timing time_memcpy(const measure_settings& s) = 0;
  /// The first error of the backend (a sticky CUDA error), or "".
  virtual std::string failure() const = 0;
};

/// Thrown by an isolated workspace (worker.hpp) when a candidate ended its worker process (a
/// signal, a sticky CUDA error) or ran past its time limit: the tuner records it and goes on.
struct candidate_fault : std::runtime_error {
  candidate_fault(std::string status_, const std::string& what, double limit = 0)
      : std::runtime_error(what), status(std::move(status_)), limit_seconds(limit) {}
  std::string status;          ///< "fault" or "timeout"
  double limit_seconds = 0;    ///< for "timeout": the --candidate-timeout it ran past
};

/// Times the candidates in turn, one sample each per round (ABCABC...), so drift hits all alike;
/// L2-cold or hot as the settings say.
std::vector<summary> time_interleaved(workspace& ws, const std::vector<const instantiation*>& insts, int rounds,
                                      const measure_settings& s);

/// JSON forms, shared by the cache, the table's settings and the worker protocol.
nlohmann::json to_json(const measure_settings& m);
measure_settings measure_settings_from_json(const nlohmann::json& j);
nlohmann::json to_json(const summary& s);
summary summary_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json to_json(const timing& t);
timing timing_from_json(const nlohmann::json& j, const std::string& where);

/// The sizes of (type, s); throws std::runtime_error naming the problem if the shape is invalid.
problem_sizes sizes_of(dtype type, const shape5& s);

/// Allocates and fills a workspace; throws std::runtime_error when memory is short or the device fails.
std::unique_ptr<workspace> make_cuda_workspace(dtype type, const shape5& s);
std::unique_ptr<workspace> make_host_workspace(dtype type, const shape5& s);

/// The fingerprint of the current CUDA device; throws std::runtime_error if none is usable.
device_fingerprint cuda_device_fingerprint();
/// The GPU of the local_rank-th process on a host (local_rank modulo the devices this process
/// sees), or -1 when there is none. Asks the count only: no CUDA context is made.
int cuda_device_for_local_rank(int local_rank);
/// Makes `device` the current CUDA device; throws std::runtime_error naming it if it cannot be.
void use_cuda_device(int device);
/// The fingerprint of the host emulation (this machine's CPU name, marked as emulation).
device_fingerprint host_fingerprint();

}  // namespace padtune::tuner
