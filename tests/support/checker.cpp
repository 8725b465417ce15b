#include "padtune/cuda_error.hpp"
#include "checker.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

#include "padtune/reference.hpp"
#include "test_data.hpp"

namespace padtune::test {
namespace {

constexpr std::size_t alignment = 256;

/// One case's memory on one backend: dy, dx with guards on both sides, and the reference's dx.
class case_memory {
 public:
  virtual ~case_memory() = default;
  virtual unsigned char* alloc(std::size_t bytes) = 0;  // aligned to `alignment`
  /// A block of exactly `bytes` (host: no slack after it, so AddressSanitizer flags a read past dy).
  virtual unsigned char* alloc_exact(std::size_t bytes) { return alloc(bytes); }
  virtual void upload(unsigned char* dst, const unsigned char* src, std::size_t n) = 0;
  virtual void download(unsigned char* dst, const unsigned char* src, std::size_t n) = 0;
  virtual void fill(unsigned char* dst, unsigned char value, std::size_t n) = 0;
  virtual std::string run(const candidate& c, const problem& p) = 0;
  /// dx set to p.fill, as whoever runs a needs_zeroed_dx instantiation does.
  virtual void prefill(const problem& p) = 0;
  virtual std::string reference(const problem& p) = 0;
  /// The first failed memory operation, if any.
  virtual std::string failure() const { return ""; }
};

class host_memory final : public case_memory {
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;

 public:
  unsigned char* alloc(std::size_t bytes) override {
    blocks_.emplace_back(new unsigned char[bytes + alignment]);
    const auto p = reinterpret_cast<std::uintptr_t>(blocks_.back().get());
    return reinterpret_cast<unsigned char*>((p + alignment - 1) / alignment * alignment);
  }
  // n may be 0 with a null vector behind it: memcpy's pointers must not be null even then.
  unsigned char* alloc_exact(std::size_t bytes) override {
    blocks_.emplace_back(new unsigned char[bytes ? bytes : 1]);
    return blocks_.back().get();  // operator new aligns to 16: the placements below stay meaningful
  }
  void upload(unsigned char* d, const unsigned char* s, std::size_t n) override { if (n) std::memcpy(d, s, n); }
  void download(unsigned char* d, const unsigned char* s, std::size_t n) override { if (n) std::memcpy(d, s, n); }
  void fill(unsigned char* d, unsigned char v, std::size_t n) override { if (n) std::memset(d, v, n); }
  std::string run(const candidate& c, const problem& p) override { return c.run(p, backend::host); }
  void prefill(const problem& p) override { prefill_host(p); }
  std::string reference(const problem& p) override {
    std::string why;
    return reference_host(p, &why) == status::ok ? "" : why;
  }
};

std::string cuda_failure(const char* what, cudaError_t e) {
  return fmt::format("{}: {}", what, cuda_error_text(e));
}

class cuda_memory final : public case_memory {
  std::vector<void*> blocks_;
  std::string error_;

  void note(const char* what, cudaError_t e) {
    if (e != cudaSuccess && error_.empty()) error_ = cuda_failure(what, e);
  }

 public:
  ~cuda_memory() override {
    for (void* p : blocks_) cudaFree(p);
  }
  unsigned char* alloc(std::size_t bytes) override {
    void* p = nullptr;
    note("cudaMalloc", cudaMalloc(&p, bytes + alignment));
    blocks_.push_back(p);
    return static_cast<unsigned char*>(p);  // cudaMalloc aligns to at least 256 bytes
  }
  void upload(unsigned char* d, const unsigned char* s, std::size_t n) override {
    note("cudaMemcpy to the device", cudaMemcpy(d, s, n, cudaMemcpyHostToDevice));
  }
  void download(unsigned char* d, const unsigned char* s, std::size_t n) override {
    note("cudaMemcpy to the host", cudaMemcpy(d, s, n, cudaMemcpyDeviceToHost));
  }
  void fill(unsigned char* d, unsigned char v, std::size_t n) override { note("cudaMemset", cudaMemset(d, v, n)); }
  void prefill(const problem& p) override { note("the fill before the launch", prefill_cuda(p, nullptr)); }
  std::string run(const candidate& c, const problem& p) override {
    if (!error_.empty()) return error_;
    if (std::string why = c.run(p, backend::cuda); !why.empty()) return why;
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failure("the kernel", e);
    return "";
  }
  std::string reference(const problem& p) override {
    if (!error_.empty()) return error_;
    std::string why;
    if (reference_device(p, nullptr, &why) != status::ok) return why;
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failure("the reference", e);
    return error_;
  }
  std::string failure() const override { return error_; }
};

std::string first_difference(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
                             std::size_t offset, std::int64_t S, std::int64_t L) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[offset + i] == want[i]) continue;
    const std::int64_t e = std::int64_t(i) / S;
    std::string g, w;
    for (std::int64_t b = S - 1; b >= 0; --b) {
      g += fmt::format("{:02x}", got[offset + std::size_t(e * S + b)]);
      w += fmt::format("{:02x}", want[std::size_t(e * S + b)]);
    }
    return fmt::format("dx element {} (row {}, i {}) is 0x{}, the reference says 0x{}", e, e / L, e % L, g, w);
  }
  return "";
}

}  // namespace

bool cuda_device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? cuda_failure("cudaGetDeviceCount", e) : "cudaGetDeviceCount found 0 devices";
    return false;
  }
  return true;
}

std::uint64_t fill_of(const shape& s, dtype type) {
  const std::size_t S = size_of(type);
  if (S < 8) return s.fill & ((std::uint64_t(1) << (8 * S)) - 1);
  return s.fill & 1 ? s.fill : s.fill & 0xffffffff00000000u;
}

candidate candidate_of(const instantiation& inst) {
  return {inst.id, inst.type, inst.needs_zeroed_dx, [&inst](const problem& p, backend b) {
            std::string why;
            return launch(inst, b, p, nullptr, &why) == status::ok ? "" : why;
          }};
}

std::string check_case(const candidate& c, backend b, const shape& s, placement at, std::mt19937_64& gen) {
  problem_sizes z;
  std::string why;
  if (check_shape(s.B, s.C, s.L, s.pad_left, s.pad_right, c.type, &why, &z) != status::ok) return "bad shape: " + why;
  const std::size_t S = std::size_t(z.elem_bytes), dy_bytes = std::size_t(z.dy_bytes()), dx_bytes = std::size_t(z.dx_bytes());
  std::unique_ptr<case_memory> mem;
  if (b == backend::host) mem = std::make_unique<host_memory>();
  else mem = std::make_unique<cuda_memory>();

  const std::vector<unsigned char> dy_host = random_elements(c.type, std::size_t(z.dy_elems), gen);
  // dy ends exactly where its block ends: a kernel that reads past dy reads past the allocation.
  unsigned char* dy = mem->alloc_exact(at.dy_elems * S + dy_bytes) + at.dy_elems * S;
  mem->upload(dy, dy_host.data(), dy_bytes);

  // dx sits guard_bytes (+ its offset) into a buffer whose every other byte is the guard pattern.
  const std::size_t dx_offset = guard_bytes + at.dx_elems * S, buffer_bytes = dx_offset + dx_bytes + guard_bytes;
  unsigned char* dx_buffer = mem->alloc(buffer_bytes);
  unsigned char* dx = dx_buffer + dx_offset;
  mem->fill(dx_buffer, guard_byte, buffer_bytes);
  mem->fill(dx, poison_byte, dx_bytes);
  const std::uint64_t fill = fill_of(s, c.type);
  const problem p{dy, dx, s.B, s.C, s.L, s.pad_left, s.pad_right, c.type, fill};
  if (c.needs_zeroed_dx) mem->prefill(p);
  unsigned char* ref = mem->alloc(dx_bytes);
  mem->fill(ref, poison_byte, dx_bytes);

  if (std::string e = mem->run(c, p); !e.empty()) return e;
  if (std::string e = mem->reference(problem{dy, ref, s.B, s.C, s.L, s.pad_left, s.pad_right, c.type, fill}); !e.empty())
    return e;

  std::vector<unsigned char> got(buffer_bytes), want(dx_bytes), dy_after(dy_bytes);
  mem->download(got.data(), dx_buffer, buffer_bytes);
  mem->download(want.data(), ref, dx_bytes);
  mem->download(dy_after.data(), dy, dy_bytes);
  if (std::string e = mem->failure(); !e.empty()) return e;

  for (std::size_t i = 0; i < buffer_bytes; ++i) {
    if (i >= dx_offset && i < dx_offset + dx_bytes) continue;
    if (got[i] != guard_byte)
      return fmt::format("guard byte {} {} dx was overwritten (0x{:02x})",
                         i < dx_offset ? dx_offset - i : i - dx_offset - dx_bytes + 1, i < dx_offset ? "before" : "after",
                         got[i]);
  }
  if (std::string e = first_difference(got, want, dx_offset, std::int64_t(S), s.L); !e.empty()) return e;
  if (dy_after != dy_host) return "dy was modified";
  return "";
}

std::vector<std::string> check_edge_suite(const instantiation& inst, backend b, std::size_t max_failures) {
  return check_edge_suite([&inst](const shape&) { return candidate_of(inst); }, b, max_failures);
}

std::vector<std::string> check_edge_suite(const std::function<candidate(const shape&)>& make, backend b,
                                          std::size_t max_failures, pad_range pads) {
  std::vector<std::string> failures;
  random_source rng;
  std::size_t k = 0;
  for (shape s : edge_suite(pads)) {
    if (k++ % 3 != 0) s.fill = rng.gen() | 1u << (k % 2);  // never 0 in any dtype; bit 0 says f64's kind
    candidate c;
    try {
      c = make(s);
    } catch (const std::exception& e) {
      failures.push_back(fmt::format("no candidate for {}: {}", s.str(), e.what()));
      continue;
    }
    for (const placement at : placements) {
      if (failures.size() >= max_failures) return failures;
      if (std::string e = check_case(c, b, s, at, rng.gen); !e.empty())
        failures.push_back(fmt::format("{} on {} with dy +{}, dx +{} elements (random seed {}): {}", c.id, s.str(),
                                       at.dy_elems, at.dx_elems, rng.seed, e));
    }
  }
  return failures;
}

std::vector<std::string> registered_ids() {
  std::vector<std::string> ids;
  for (const instantiation& i : registry()) ids.push_back(i.id);
  return ids;
}

}  // namespace padtune::test
