#include "padtune/jit/loaded_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <utility>
#include <vector>

#include "fail.hpp"
#include "padtune/cuda_error.hpp"

namespace padtune::jit {

loaded_kernel::loaded_kernel(const kernel& k, compile_options opts) : kernel_(k) {
  image_ = compile(k, opts);  // an empty arch: the GPU's, or PTX where this NVRTC is older than the GPU
  load();
}

loaded_kernel::loaded_kernel(const kernel& k, compiled image) : kernel_(k), image_(std::move(image)) { load(); }

loaded_kernel::loaded_kernel(loaded_kernel&& other) noexcept
    : kernel_(other.kernel_), image_(std::move(other.image_)), library_(std::exchange(other.library_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)), load_seconds_(other.load_seconds_),
      resident_blocks_(other.resident_blocks_) {}

loaded_kernel& loaded_kernel::operator=(loaded_kernel&& other) noexcept {
  if (this != &other) {
    unload();
    kernel_ = other.kernel_;
    image_ = std::move(other.image_);
    library_ = std::exchange(other.library_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    load_seconds_ = other.load_seconds_;
    resident_blocks_ = other.resident_blocks_;
  }
  return *this;
}

loaded_kernel::~loaded_kernel() { unload(); }

void loaded_kernel::unload() noexcept {
  if (library_) cudaLibraryUnload(library_);  // fails harmlessly once the runtime is torn down at exit
  library_ = nullptr;
  entry_ = nullptr;
}

void loaded_kernel::load() {
  const auto start = std::chrono::steady_clock::now();
  // c_str(): PTX must end with a NUL, which std::string keeps after its text.
  cudaError_t e = cudaLibraryLoadData(&library_, image_.image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    library_ = nullptr;
    throw error(status::launch_failed, fmt::format("loading {} ({} for {}) failed: {}", kernel_.id(),
                                                   image_.format == image_format::ptx ? "PTX" : "cubin", image_.arch,
                                                   cuda_error_text(e)));
  }
  e = cudaLibraryGetKernel(&entry_, library_, kernel_.entry_point_name().c_str());
  if (e != cudaSuccess) {
    unload();
    throw error(status::launch_failed, fmt::format("{} has no kernel {}: {}", kernel_.id(), kernel_.entry_point_name(),
                                                   cuda_error_text(e)));
  }
  load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // One wave of resident blocks on the current device caps the grid: a JIT kernel plans its problem
  // once per thread (its arguments are the seed's tuple, so the plan cannot come from the host), and
  // a thread that walks several logical blocks pays for that once. Without the figure, no cap.
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(entry_), kernel_.threads(),
                                                    0) == cudaSuccess)
    resident_blocks_ = std::uint64_t(sms) * std::uint64_t(per_sm);
  else
    cudaGetLastError();  // a failed query is no error of a later launch
}

status loaded_kernel::enqueue(const void* dy, void* dx, std::int32_t B, std::int32_t C, std::int32_t L, std::int32_t OL,
                              cudaStream_t stream, std::string* why) const noexcept try {
  problem_sizes sizes;
  if (const status s = kernel_.check_arguments(dy, dx, B, C, L, OL, why, &sizes); s != status::ok) return s;
  if (sizes.dx_elems == 0) return status::ok;
  const std::uint64_t blocks = kernel_.logical_blocks(dy, dx, B, C, L);
  if (blocks == 0) return status::ok;
  const std::uint64_t cap = resident_blocks_ ? resident_blocks_ : INT_MAX;  // the kernel walks the rest
  const unsigned grid = unsigned(std::min<std::uint64_t>(blocks, cap));
  void* dy_arg = const_cast<void*>(dy);  // the seed's tuple has D* dy; the kernel only reads it
  void* args[] = {&dy_arg, &dx, &B, &C, &L, &OL};
  if (const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(entry_), dim3(grid),
                                             dim3(unsigned(kernel_.threads())), args, 0, stream);
      e != cudaSuccess)
    return fail(why, status::launch_failed, fmt::format("launching {} failed: {}", kernel_.id(), cuda_error_text(e)));
  return status::ok;
} catch (...) {  // fmt may throw bad_alloc; this entry point promises noexcept
  return status::launch_failed;
}

void loaded_kernel::launch(const void* dy, void* dx, std::int32_t B, std::int32_t C, std::int32_t L, std::int32_t OL,
                           cudaStream_t stream) const {
  std::string why;
  if (const status s = enqueue(dy, dx, B, C, L, OL, stream, &why); s != status::ok) throw error(s, why);
}

status loaded_kernel::launch(const problem& p, cudaStream_t stream, std::string* why) const noexcept {
  if (const status s = kernel_.can_implement(p, why); s != status::ok) return s;
  const std::int64_t OL = p.pad_left + p.L + p.pad_right;
  return enqueue(p.dy, p.dx, std::int32_t(p.B), std::int32_t(p.C), std::int32_t(p.L), std::int32_t(OL), stream, why);
}

}  // namespace padtune::jit
