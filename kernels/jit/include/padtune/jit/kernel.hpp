#pragma once
/// A JIT kernel object of the ConstantPad1dBackward family: the seed's surface (name, id, pads,
/// BLOCK_OL, kernel source, generated entry point, content hash) for any variant of the family.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "padtune/dtype.hpp"
#include "padtune/problem.hpp"

namespace padtune::jit {

/// The algorithm and its template parameters besides the pads and BLOCK_OL.
struct variant_choice {
  std::string variant = "seed";  ///< seed, rowtile, flat, flatvec, ewise, staged or rowelem (kernels/device/<variant>.cuh)
  int max_threads = 256;         ///< threads per block = min(max_threads, what one tile keeps busy)
  int width = 0;                 ///< bytes per access: 4, 8 or 16; 0 picks 16 (the seed ignores it)
};

/// A file the source #includes, handed to NVRTC from memory: its include name and its text.
struct header {
  std::string_view name;
  std::string_view text;
};

/// The kernel object, its dtype a run-time value (padtune::ConstantPad1dBackward<D> is the typed
/// face). The pads and BLOCK_OL are compile-time constants of its source. Immutable once made.
class kernel {
 public:
  /// Throws padtune::error (invalid_config) for a variant that does not exist or does not accept
  /// these parameters (e.g. rowtile with a tile shorter than one access), saying which rule failed.
  kernel(dtype type, std::int32_t pad_left, std::int32_t pad_right, std::int32_t block_ol, variant_choice choice = {});

  /// "constant_pad1d_backward"
  const std::string& name() const { return name_; }
  /// name, dtype and the constants joined by "__": constant_pad1d_backward__f32__2__3__256 for the
  /// seed with its default threads; other choices append __<variant>__t<threads>__w<width>.
  const std::string& id() const { return id_; }
  std::int32_t pad_left() const { return pad_left_; }
  std::int32_t pad_right() const { return pad_right_; }
  std::int32_t block_ol() const { return block_ol_; }
  /// The variant's kernel template, the very text of kernels/device/<variant>.cuh.
  const std::string& kernel_source() const { return kernel_source_; }
  /// The generated extern "C" __global__ wrapper that instantiates it with these constants.
  const std::string& entry_point_source() const { return entry_point_source_; }
  /// kernel_source() + "\n\n" + entry_point_source(): what NVRTC compiles.
  const std::string& source() const { return source_; }
  /// "{name}_entry_point"
  std::string entry_point_name() const { return name_ + "_entry_point"; }
  /// 16 hex digits: a hash of source() and of every header it may include. The cache key.
  const std::string& hash() const { return hash_; }
  /// A copy whose kernel template is `text` instead of the embedded one (an edit to try without a
  /// rebuild, or a test's broken source); the entry point, source and hash follow. The launch still
  /// sizes its grid from the embedded plan (at most its logical blocks), and every block of the grid
  /// runs at least once (run_grid in grid_walk.cuh): an edit must keep the plan's block count, or it
  /// runs blocks that its own plan does not have.
  kernel with_kernel_source(std::string text) const;
  /// A copy that writes the bits `fill` (padtune::problem::fill; fill_bits makes them from a value)
  /// where dx has no source, a constant of its source like the pads; a fill other than 0 appends
  /// __fill<hex> to the id. Throws padtune::error (invalid_fill) for bits beyond the element.
  kernel with_fill(std::uint64_t fill) const;
  std::uint64_t fill() const { return fill_; }
  /// The files source() #includes (grid_walk.cuh, jit_entry.cuh, ...), for NVRTC.
  std::span<const header> headers() const;

  dtype type() const { return type_; }
  const std::string& variant() const { return choice_.variant; }
  int max_threads() const { return choice_.max_threads; }
  int threads() const { return threads_; }            ///< threads per block of every launch
  int access_width() const { return access_width_; }  ///< bytes per access in the hot loop
  /// True for the seed: it writes only the positions that have a source, so dx must hold the fill first.
  bool needs_zeroed_dx() const { return needs_zeroed_dx_; }

  /// The launch arguments' check: sizes >= 0, OL == pad_left + L + pad_right (shape_mismatch), the
  /// pointers as padtune::check sees them. Fills *sizes on success.
  status check_arguments(const void* dy, const void* dx, std::int32_t B, std::int32_t C, std::int32_t L,
                         std::int32_t OL, std::string* why = nullptr, problem_sizes* sizes = nullptr) const noexcept;
  /// ok if this kernel can run p: its dtype, its pads and fill, sizes within int32, and padtune::check.
  status can_implement(const problem& p, std::string* why = nullptr) const noexcept;

  /// The logical blocks of a problem, planned by the variant's own plan function (the one its
  /// kernel runs), for the grid size. Pre: the problem passed padtune::check.
  std::uint64_t logical_blocks(const void* dy, void* dx, std::int64_t B, std::int64_t C, std::int64_t L) const;

 private:
  void make_entry_point();  ///< id_ and entry_point_source_ from the constants
  void assemble();          ///< source_ and hash_ from kernel_source_ and entry_point_source_

  std::string name_ = "constant_pad1d_backward";
  dtype type_;
  std::int32_t pad_left_, pad_right_, block_ol_;
  variant_choice choice_;
  int threads_ = 0, access_width_ = 0;
  bool needs_zeroed_dx_ = false;
  std::uint64_t fill_ = 0;
  std::string id_, kernel_source_, entry_point_source_, source_, hash_;
};

/// The kernel an id() names, its fill included: the inverse of id(). nullopt for anything that is not
/// the canonical id of a kernel this family makes (another spelling of the numbers, an unknown
/// variant, parameters the variant refuses). The tuner names its JIT candidates by these ids.
std::optional<kernel> parse_kernel_id(std::string_view id);

/// The variants a JIT kernel can be made of, in the order of the registry.
std::span<const std::string_view> jit_variants();

}  // namespace padtune::jit
