#pragma once
/// The registry of every compiled instantiation of the kernel family (kernels/device/configs.cuh).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "padtune/dtype.hpp"
#include "padtune/problem.hpp"

namespace padtune {

/// Where a launch runs. The host backend emulates the grid on the CPU: its timings say nothing
/// about GPU speed.
enum class backend { cuda, host };

constexpr std::string_view name_of(backend b) noexcept { return b == backend::cuda ? "cuda" : "host"; }

/// One compiled instantiation: its parameters, its contract and a launcher per backend.
struct instantiation {
  std::string id;            ///< constant_pad1d_backward__<dtype>__<variant>__bo<BLOCK_OL>__t<threads>__w<width>
  std::string_view variant;  ///< "seed", "rowtile", "flat", ...
  dtype type;
  int block_ol;          ///< tile length in elements
  int threads;           ///< threads per block
  int access_width;      ///< bytes per global access in the hot loop
  bool needs_zeroed_dx;  ///< true for the seed: dx must hold the fill before launch (prefill_*)
  /// Enqueues the kernel; returns the launch error (cudaSuccess if none). Pre: check(p) == ok.
  cudaError_t (*launch_cuda)(const problem& p, cudaStream_t stream);
  /// Runs the same kernel code over the whole grid on the CPU. Pre: check(p) == ok.
  void (*launch_host)(const problem& p);
  /// What must happen once before the first launch (a JIT candidate's compile and load): "" or why
  /// it cannot run. nullptr for the compiled instantiations, which need nothing.
  std::string (*prepare)(const instantiation&) = nullptr;
};

/// One variant of the family, as its description says (kernels/device/variants.cuh).
struct variant_info {
  std::string_view name;  ///< "seed", "rowtile", ...
  std::string_view idea;  ///< the idea in one line
  bool needs_zeroed_dx;   ///< whoever runs it zeroes dx first
  bool takes_width;       ///< configurations choose an access width (else one element per access)
  std::string_view rule;  ///< which configurations it accepts, in words
};

/// Every variant, in registry order.
std::span<const variant_info> variants();

/// The variant with this name, or nullptr.
const variant_info* find_variant(std::string_view name);

/// The built-in default's choice where no table serves a shape (variants.cuh: builtin_default):
/// the long-row variant for rows of at least that many bytes, else the short-row one, each the
/// compiled instantiation of `type` nearest to its tile with 16-byte accesses; chosen once per dtype.
/// nullptr only for a value that names no dtype.
const instantiation* builtin_default_instantiation(dtype type, std::int64_t L);
/// The same choice in words, for explain.
std::string builtin_default_reason(dtype type, std::int64_t L);

/// Every instantiation, in a stable order (variant list order, then dtype, then parameters).
std::span<const instantiation> registry();

/// The instantiation with this id, or nullptr.
const instantiation* find_instantiation(std::string_view id);

/// Validates p, then runs `inst` on backend `b`. A problem with no elements is a no-op. Does not
/// fill dx for instantiations that need it: whoever runs them does (prefill_*), and counts it. On
/// failure returns the code and sets *why.
status launch(const instantiation& inst, backend b, const problem& p, cudaStream_t stream = nullptr,
              std::string* why = nullptr);

/// Sets p's dx to p.fill, on the device on `stream` (a memset where the fill's bytes are all one
/// byte), or on the host: what runs before an instantiation with needs_zeroed_dx. Pre: check(p) == ok.
cudaError_t prefill_cuda(const problem& p, cudaStream_t stream);
void prefill_host(const problem& p);

}  // namespace padtune
