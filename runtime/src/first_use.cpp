#include "first_use.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>

#include "padtune/detail/input.hpp"
#include "padtune/padtune.hpp"

namespace padtune::detail {
namespace {

struct autotune_state {
  /// 1 on, 0 off (set_autotune or PADTUNE_AUTOTUNE said so), 2 neither said: on for a device that
  /// borrows another model's table only; -1 PADTUNE_AUTOTUNE not read yet.
  std::atomic<int> on{-1};
  std::mutex mutex;         ///< guards chosen
  std::map<shape_key, timed_choice> chosen;
  std::atomic<std::size_t> timed{0};  ///< shapes timed, for autotuned_shapes()
};

autotune_state& autotune() {
  static autotune_state a;
  return a;
}

}  // namespace

/// Whether first-use timing is on for calls served by t (any device's when t is null).
bool autotune_on(const device_table* t) {
  autotune_state& a = autotune();
  int on = a.on.load(std::memory_order_relaxed);
  if (on < 0) {
    const char* env = std::getenv("PADTUNE_AUTOTUNE");
    const std::string_view value = env ? env : "";
    int unread = -1;  // set_autotune, if it came first, wins; one thread reads the variable and warns
    if (a.on.compare_exchange_strong(unread, value == "1" ? 1 : value == "" ? 2 : 0) && value != "" && value != "0" &&
        value != "1")
      print_error("padtune: PADTUNE_AUTOTUNE='{}' is neither 0 nor 1: first-use timing stays off\n", value);
    on = a.on.load(std::memory_order_relaxed);
  }
  return on == 1 || (on == 2 && t && t->borrowed);
}

/// The device a call on backend b runs on, as timed choices are keyed: -1 on the host.
int device_of(backend b) {
  int ordinal = -1;
  if (b == backend::host) return -1;
  if (cudaGetDevice(&ordinal) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return ordinal;
}

/// The timed choice of a shape, for explain: done, failed, or being timed (inst null).
std::optional<timed_choice> find_timed(const shape_key& key) {
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  const auto it = a.chosen.find(key);
  if (it == a.chosen.end()) return std::nullopt;
  return it->second;
}

/// What first-use timing has for a shape on the dispatch path: {kernel, true} once chosen (timed,
/// or the vote's after a failed timing), {nullptr, true} while another thread times it,
/// {nullptr, false} if nobody has. With `claim`, an untimed shape is marked as this thread's to time.
std::pair<const instantiation*, bool> timed_or_claim(const shape_key& key, bool claim) {
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  if (const auto it = a.chosen.find(key); it != a.chosen.end()) return {it->second.inst, true};
  if (claim) a.chosen.emplace(key, timed_choice{});
  return {nullptr, false};
}

/// Times the vote's finalists on p and keeps one: the vote's first unless another is clearly faster
/// (autotune.hpp). Pre: this thread claimed the key. A failed timing is reported once and leaves the
/// shape to the vote's choice, for good: the user's call goes on.
const instantiation* time_and_keep(const shape_key& key, const detail::vote_result& v, backend b, const problem& p,
                                   cudaStream_t stream) {
  timed_choice c;
  try {
    c.timings = detail::time_finalists(v.order.data(), std::min(detail::autotune_finalists, v.candidates), b, p, stream);
    const std::vector<detail::finalist_timing>& runs = c.timings.runs;
    std::size_t best = 0;  // the fastest; of equals, the earliest in the vote's order
    for (std::size_t k = 1; k < runs.size(); ++k)
      if (runs[k].median_us < runs[best].median_us) best = k;
    c.inst = runs.at(best).median_us < (1 - detail::autotune_margin) * runs.at(0).median_us ? runs[best].inst : runs[0].inst;
  } catch (const std::exception& x) {  // padtune's errors, and any other (memory, threads): the claim must end
    c = timed_choice{v.inst, {}, x.what()};
    print_error("padtune: first-use timing of {} (rows {}, L {}, pads {} {}) failed: {}; the vote's choice serves it\n",
               name_of(key.type), key.rows, key.L, key.pad_left, key.pad_right, x.what());
  }
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  if (c.failed.empty()) a.timed.fetch_add(1, std::memory_order_relaxed);
  return (a.chosen[key] = std::move(c)).inst;
}

}  // namespace padtune::detail

namespace padtune {

void set_autotune(bool on) { detail::autotune().on.store(on ? 1 : 0, std::memory_order_relaxed); }

std::size_t autotuned_shapes() { return detail::autotune().timed.load(std::memory_order_relaxed); }

bool autotune_enabled() { return detail::autotune_on(); }  // as set: a device borrowing a table also times where this is false

}  // namespace padtune
