#pragma once
/// A JIT kernel loaded into the process (CUDA runtime library management: cudaLibraryLoadData),
/// launched with the seed's argument tuple.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "padtune/dtype_of.hpp"
#include "padtune/error.hpp"
#include "padtune/jit/compile.hpp"
#include "padtune/problem.hpp"

namespace padtune::jit {

/// Owns a loaded image of one kernel. Move-only; unloads on destruction. Loading goes through the
/// runtime API, which opens the driver lazily: a program that never loads runs without one.
class loaded_kernel {
 public:
  /// Compiles for the current GPU (a cubin, or PTX where NVRTC does not know the GPU) through the
  /// cache, then loads. Throws padtune::error.
  explicit loaded_kernel(const kernel& k, compile_options opts = {});
  /// Loads an image compiled before (compile()). Throws padtune::error (launch_failed).
  loaded_kernel(const kernel& k, compiled image);
  loaded_kernel(loaded_kernel&& other) noexcept;
  loaded_kernel& operator=(loaded_kernel&& other) noexcept;
  loaded_kernel(const loaded_kernel&) = delete;
  loaded_kernel& operator=(const loaded_kernel&) = delete;
  ~loaded_kernel();

  const kernel& source_kernel() const { return kernel_; }
  const compiled& compilation() const { return image_; }
  double load_seconds() const { return load_seconds_; }
  /// Blocks of this kernel resident at once on the device it was loaded on (0: unknown): the
  /// grid's cap, above which threads walk several logical blocks.
  std::uint64_t resident_blocks() const { return resident_blocks_; }

  /// The seed's launch: kernel::check_arguments, then enqueues on `stream`. Does not zero dx for the seed
  /// variant (needs_zeroed_dx): whoever launches does. Throws padtune::error.
  void launch(const void* dy, void* dx, std::int32_t B, std::int32_t C, std::int32_t L, std::int32_t OL,
              cudaStream_t stream = nullptr) const;

  /// The same with the argument tuple of ConstantPad1dBackward<D>; D must be the kernel's dtype.
  template <class D>
  void launch(const std::tuple<D*, D*, std::int32_t, std::int32_t, std::int32_t, std::int32_t>& args,
              cudaStream_t stream = nullptr) const {
    if (dtype_of<D>() != kernel_.type())
      throw error(status::dtype_mismatch, kernel_.id() + " takes " + std::string(name_of(kernel_.type())) +
                                              ", the arguments are " + std::string(name_of(dtype_of<D>())));
    launch(std::get<0>(args), std::get<1>(args), std::get<2>(args), std::get<3>(args), std::get<4>(args),
           std::get<5>(args), stream);
  }

  /// The registry's form (a problem), for callers that hold problems, like the tuner: checks
  /// kernel::can_implement, then launches; returns the status instead of throwing.
  status launch(const problem& p, cudaStream_t stream = nullptr, std::string* why = nullptr) const noexcept;

 private:
  void load();
  status enqueue(const void* dy, void* dx, std::int32_t B, std::int32_t C, std::int32_t L, std::int32_t OL,
                 cudaStream_t stream, std::string* why) const noexcept;
  void unload() noexcept;

  kernel kernel_;
  compiled image_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t entry_ = nullptr;
  double load_seconds_ = 0;
  std::uint64_t resident_blocks_ = 0;
};

}  // namespace padtune::jit
