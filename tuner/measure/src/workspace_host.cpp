// The host workspace: the emulation backend, timed with a steady clock. Its numbers rank nothing
// on a GPU; they exist so that the whole tuner runs, end to end, where there is no GPU.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

#include <unistd.h>

#include "padtune/measure/workspace.hpp"
#include "padtune/enqueue.hpp"
#include "padtune/reference.hpp"

namespace padtune::tuner {
namespace {

constexpr std::size_t guard_bytes = 64;

class host_workspace final : public workspace {
 public:
  host_workspace(dtype type, const shape5& s) : type_(type), shape_(s) {
    const problem_sizes z = sizes_of(type, s);
    std::string why;
    // dy, dx with its guards, the reference and a copy: refused by name where the machine has not the
    // memory, rather than left to an allocator (a sanitizer's aborts where malloc would return null).
    const double needed = double(z.dy_bytes()) + 3.0 * double(z.dx_bytes()) + 2.0 * guard_bytes;
    const double physical = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
    if (physical > 0 && needed > physical)
      throw std::runtime_error(fmt::format("the host emulation needs {:.3g} bytes of memory for this shape; this machine has {:.3g}",
                                           needed, physical));
    dx_bytes_ = std::size_t(z.dx_bytes());
    // 64-bit words keep dy and dx aligned for every dtype.
    dy_.resize(std::size_t(z.dy_bytes()) / 8 + 1);
    dx_.resize((dx_bytes_ + 2 * guard_bytes) / 8 + 1);
    ref_.resize(dx_bytes_ / 8 + 1);
    copy_.resize(dx_bytes_ / 8 + 1);
    std::mt19937_64 gen(std::random_device{}());
    for (std::uint64_t& w : dy_) w = gen() | 0x0001000100010001ull;  // no element of any dtype is +0
    if (reference_host(problem_on(ref_.data()), &why) != status::ok) throw std::runtime_error(why);
  }

  std::string verify(const instantiation& inst) override {
    unsigned char* buffer = reinterpret_cast<unsigned char*>(dx_.data());
    std::memset(buffer, guard_byte, dx_bytes_ + 2 * guard_bytes);
    std::memset(dx(), poison_byte, dx_bytes_);
    if (inst.prepare)
      if (std::string e = inst.prepare(inst); !e.empty()) return e;
    std::string why;
    if (enqueue(inst, backend::host, problem_on(dx()), nullptr, &why) != status::ok) return why;
    if (std::memcmp(dx(), ref_.data(), dx_bytes_) != 0) return "dx differs from the reference";
    for (std::size_t i = 0; i < guard_bytes; ++i)
      if (buffer[i] != guard_byte || dx()[dx_bytes_ + i] != guard_byte) return "a guard byte around dx was overwritten";
    return "";
  }

  timing time(const instantiation& inst, const measure_settings& s) override {
    const problem p = problem_on(dx());
    return time_with(s, [&] { enqueue_checked(inst, backend::host, p, nullptr); });
  }

  timing time_memcpy(const measure_settings& s) override {
    // From the reference's dx: exactly dx_bytes long (dy is shorter when pads crop).
    return time_with(s, [&] { std::memcpy(copy_.data(), ref_.data(), dx_bytes_); });
  }

  std::string failure() const override { return ""; }

 private:
  unsigned char* dx() { return reinterpret_cast<unsigned char*>(dx_.data()) + guard_bytes; }
  problem problem_on(void* dx) const {
    return problem{dy_.data(), dx, shape_.B, shape_.C, shape_.L, shape_.pad_left, shape_.pad_right, type_};
  }
  template <class Run>
  timing time_with(const measure_settings& s, Run&& run) {
    for (int i = 0; i < s.warmup; ++i) run();
    std::vector<double> v;
    const auto t0 = std::chrono::steady_clock::now();
    do {
      const auto a = std::chrono::steady_clock::now();
      run();
      v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    } while (!s.rule.done(v, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    timing t;
    t.cold = summarize(std::move(v));  // the host has no L2 flush: cold and hot are one figure
    t.hot = t.cold;
    return t;
  }

  dtype type_;
  shape5 shape_;
  std::size_t dx_bytes_ = 0;
  std::vector<std::uint64_t> dy_, dx_, ref_, copy_;
};

}  // namespace

std::unique_ptr<workspace> make_host_workspace(dtype type, const shape5& s) { return std::make_unique<host_workspace>(type, s); }

device_fingerprint host_fingerprint() {
  device_fingerprint f;
  f.backend = "host";
  f.name = "host emulation";
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);)
    if (line.rfind("model name", 0) == 0) {
      f.name = "host emulation on " + line.substr(line.find(':') + 2);
      break;
    }
  f.uuid = "host";
  return f;
}

}  // namespace padtune::tuner
