#pragma once
// First-use timing (set_autotune, PADTUNE_AUTOTUNE): a shape's first dispatch times the vote's
// finalists and keeps one for the process; its memo, keyed by table, device and problem, lives in
// first_use.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "autotune.hpp"
#include "tables.hpp"

namespace padtune::detail {

/// A shape as the dispatcher remembers a choice for it: by table, backend and device (one table may
/// serve the host and several GPUs: an explicit table taken for any device, an embedded one of the
/// same compute capability; a timed choice is one device's), dtype and problem, pad_right included
/// (it sets how far apart dy's rows are).
struct shape_key {
  const lookup_table* table = nullptr;
  backend where = backend::cuda;
  int device = -1;  ///< the CUDA ordinal; -1 on the host
  dtype type = dtype::f32;
  std::int64_t rows = 0, L = 0, pad_left = 0, pad_right = 0;
  auto tie() const { return std::tie(table, where, device, type, rows, L, pad_left, pad_right); }
  bool operator<(const shape_key& o) const { return tie() < o.tie(); }
  bool operator==(const shape_key& o) const { return tie() == o.tie(); }
};

struct timed_choice {
  const instantiation* inst = nullptr;  ///< nullptr while a thread is timing the shape
  detail::finalist_timings timings;
  std::string failed;  ///< why the timing failed ("" if it did not); then inst is the vote's choice
};

/// Whether first-use timing is on for calls served by t (any device's when t is null).
bool autotune_on(const device_table* t = nullptr);

/// The device a call on backend b runs on, as timed choices are keyed: -1 on the host.
int device_of(backend b);

/// The timed choice of a shape, for explain: done, failed, or being timed (inst null).
std::optional<timed_choice> find_timed(const shape_key& key);

/// What first-use timing has for a shape on the dispatch path: {kernel, true} once chosen (timed,
/// or the vote's after a failed timing), {nullptr, true} while another thread times it,
/// {nullptr, false} if nobody has. With `claim`, an untimed shape is marked as this thread's to time.
std::pair<const instantiation*, bool> timed_or_claim(const shape_key& key, bool claim);

/// Times the vote's finalists on p and keeps one: the vote's first unless another is clearly faster
/// (autotune.hpp). Pre: this thread claimed the key. A failed timing is reported once and leaves the
/// shape to the vote's choice, for good: the user's call goes on.
const instantiation* time_and_keep(const shape_key& key, const vote_result& v, backend b, const problem& p,
                                   cudaStream_t stream);

}  // namespace padtune::detail
