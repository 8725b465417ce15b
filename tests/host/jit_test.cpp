// JIT kernel objects without a GPU: the seed's surface, NVRTC compiles of every variant and dtype,
// the on-disk cache (hits, misses, bad entries, concurrent writers) and NVRTC's log on errors.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "padtune/jit/constant_pad1d_backward.hpp"

namespace padtune::jit {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh, empty cache folder per test, removed afterwards.
class JitCache : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / folder_name(info->name());
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  compile_options ptx_options() const { return {image_format::ptx, "sm_90", true, dir}; }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> files;
    if (fs::exists(dir))
      for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
    return files;
  }

 private:
  static std::string folder_name(const std::string& test) {
    return "padtune-jit-test-" + std::to_string(::getpid()) + "-" + test;
  }
};

TEST(JitKernel, HasTheSeedsSurface) {
  const ConstantPad1dBackward<float> k(2, 3, 256);
  EXPECT_EQ(k.name(), "constant_pad1d_backward");
  EXPECT_EQ(k.id(), "constant_pad1d_backward__f32__2__3__256");
  EXPECT_EQ(k.pad_left(), 2);
  EXPECT_EQ(k.pad_right(), 3);
  EXPECT_EQ(k.block_ol(), 256);
  EXPECT_EQ(k.entry_point_name(), "constant_pad1d_backward_entry_point");
  EXPECT_EQ(k.source(), k.kernel_source() + "\n\n" + k.entry_point_source());
  EXPECT_EQ(k.variant(), "seed");
  EXPECT_TRUE(k.needs_zeroed_dx());
  EXPECT_FALSE(ConstantPad1dBackward<float>(2, 3, 1024, {"rowtile"}).needs_zeroed_dx());  // writes every element
  EXPECT_EQ(k.threads(), 256);
  static_assert(std::is_same_v<ConstantPad1dBackward<float>::launch_args,
                               std::tuple<float*, float*, std::int32_t, std::int32_t, std::int32_t, std::int32_t>>);
  // The pads and BLOCK_OL are constants of the generated entry point.
  EXPECT_NE(k.entry_point_source().find("extern \"C\" __global__"), std::string::npos);
  EXPECT_NE(k.entry_point_source().find("seed_kernel<float, 256, 256, 0>, 2LL, 3LL, 0x0ULL>"), std::string::npos)
      << k.entry_point_source();
}

TEST(JitKernel, TheFillIsAConstantOfItsSource) {
  const ConstantPad1dBackward<__half> k(2, 3, 256, {"rowtile"});
  const kernel f = k.with_fill(0x3e00);  // 1.5
  EXPECT_EQ(f.fill(), 0x3e00u);
  EXPECT_EQ(f.id(), k.id() + "__fill3e00");
  EXPECT_NE(f.hash(), k.hash());
  EXPECT_NE(f.entry_point_source().find(", 2LL, 3LL, 0x3e00ULL>"), std::string::npos) << f.entry_point_source();
  EXPECT_EQ(f.with_fill(0).id(), k.id());
  try {
    (void)k.with_fill(0x1'0000);
    ADD_FAILURE() << "17 bits accepted as an f16 fill";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_fill);
    EXPECT_NE(std::string(e.what()).find("beyond a 2-byte f16 element"), std::string::npos) << e.what();
  }
  // A problem must ask for the fill the kernel was compiled with.
  std::vector<std::uint16_t> dy(64), dx(64);
  problem p{dy.data(), dx.data(), 1, 2, 8, 2, 3, dtype::f16, 0x3e00};
  std::string why;
  EXPECT_EQ(f.can_implement(p, &why), status::ok) << why;
  p.fill = 0;
  EXPECT_EQ(f.can_implement(p, &why), status::invalid_fill);
  EXPECT_NE(why.find("is compiled for fill 0x3e00, the problem has fill 0x0"), std::string::npos) << why;
}

TEST(JitKernel, KernelSourceIsTheFileTheAheadOfTimeBuildCompiles) {
  for (const std::string_view v : jit_variants()) {
    const kernel k(dtype::f32, 1, 1, 1024, {std::string(v)});
    EXPECT_EQ(k.kernel_source(), read_file(fs::path(PADTUNE_SOURCE_DIR) / "kernels/device" / (std::string(v) + ".cuh")))
        << v;
  }
  const kernel k(dtype::f32, 1, 1, 1024);
  for (const header& h : k.headers())
    EXPECT_EQ(h.text, read_file(fs::path(PADTUNE_SOURCE_DIR) / "kernels/device" / std::string(h.name))) << h.name;
}

TEST(JitKernel, IdNamesDtypeConstantsAndVariant) {
  EXPECT_EQ(ConstantPad1dBackward<double>(0, 0, 16).id(), "constant_pad1d_backward__f64__0__0__16");
  EXPECT_EQ(ConstantPad1dBackward<__half>(-1, 4, 64).id(), "constant_pad1d_backward__f16__-1__4__64");
  EXPECT_EQ(ConstantPad1dBackward<__nv_bfloat16>(-1, 4, 1024, {"rowtile"}).id(),
            "constant_pad1d_backward__bf16__-1__4__1024__rowtile__t128__w16");
  EXPECT_EQ(ConstantPad1dBackward<float>(2, 3, 1024, {"flatvec", 128, 8}).id(),
            "constant_pad1d_backward__f32__2__3__1024__flatvec__t128__w8");
  EXPECT_EQ(ConstantPad1dBackward<float>(2, 3, 1024, {"seed", 128}).id(),
            "constant_pad1d_backward__f32__2__3__1024__seed__t128__w4");
}

TEST(JitKernel, AnIdReadsBackAsTheKernelItNames) {
  const kernel made[] = {kernel(dtype::f64, 0, 0, 16), kernel(dtype::f16, -1, 4, 64),
                         kernel(dtype::bf16, -1, 4, 1024, {"rowtile"}), kernel(dtype::f32, 2, 3, 1024, {"flatvec", 128, 8}),
                         kernel(dtype::f32, 2, 3, 1024, {"seed", 128}), kernel(dtype::f32, 7, -2, 512, {"flat"}).with_fill(0x3f800000)};
  for (const kernel& k : made) {
    const std::optional<kernel> back = parse_kernel_id(k.id());
    ASSERT_TRUE(back) << k.id();
    EXPECT_EQ(back->id(), k.id());
    EXPECT_EQ(back->hash(), k.hash()) << k.id();
    EXPECT_EQ(back->fill(), k.fill()) << k.id();
  }
  for (const char* id : {"", "constant_pad1d_backward__f32__2__3", "constant_pad1d_backward__f99__2__3__16",
                         "constant_pad1d_backward__f32__2__x__16", "constant_pad1d_backward__f32__02__3__16",
                         "constant_pad1d_backward__f32__2__3__16__fill0",           // fill 0 is not spelled
                         "constant_pad1d_backward__f32__2__3__16__fillzz",
                         "constant_pad1d_backward__f16__2__3__16__fill3f800000",    // bits beyond a 2-byte element
                         "constant_pad1d_backward__f32__2__3__1024__fastest__t128__w16", "other__f32__2__3__16"})
    EXPECT_FALSE(parse_kernel_id(id)) << id;
}

TEST(JitKernel, HashFollowsSourceAndConstants) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  EXPECT_EQ(k.hash().size(), 16u);
  EXPECT_EQ(k.hash(), ConstantPad1dBackward<float>(2, 3, 16).hash());
  EXPECT_NE(k.hash(), ConstantPad1dBackward<float>(2, 4, 16).hash());
  EXPECT_NE(k.hash(), ConstantPad1dBackward<float>(1, 3, 16).hash());
  EXPECT_NE(k.hash(), ConstantPad1dBackward<float>(2, 3, 32).hash());
  EXPECT_NE(k.hash(), ConstantPad1dBackward<double>(2, 3, 16).hash());
  EXPECT_NE(k.hash(), ConstantPad1dBackward<float>(2, 3, 64, {"rowtile"}).hash());
  EXPECT_NE(k.hash(), k.with_kernel_source(k.kernel_source() + "// edited\n").hash());
}

TEST(JitKernel, RefusesWhatTheVariantDoesNotAccept) {
  const auto code_of = [](auto make) {
    try {
      make();
    } catch (const error& e) {
      return std::pair{e.code(), std::string(e.what())};
    }
    return std::pair{status::ok, std::string()};
  };
  // A 16-element tile of f16 is two 16-byte chunks: fewer threads than elements per chunk.
  auto [code, why] = code_of([] { ConstantPad1dBackward<__half>(2, 3, 16, {"rowtile"}); });
  EXPECT_EQ(code, status::invalid_config);
  EXPECT_NE(why.find("rowtile does not accept BLOCK_OL 16"), std::string::npos) << why;
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 16, {"fastest"}); }).first, status::invalid_config);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 0); }).first, status::invalid_config);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 300); }).first, status::invalid_config);  // 256 threads
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 1024, {"flat", 256, 3}); }).first, status::invalid_config);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<double>(2, 3, 1024, {"flat", 256, 4}); }).first, status::invalid_config);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 1024, {"seed", 2048}); }).first, status::invalid_config);
  // rowelem holds a thread's elements in registers: 8192 on 256 threads is 32 each, over its 16.
  auto [re_code, re_why] = code_of([] { ConstantPad1dBackward<float>(2, 3, 8192, {"rowelem", 256}); });
  EXPECT_EQ(re_code, status::invalid_config);
  EXPECT_NE(re_why.find("at most 16 elements each"), std::string::npos) << re_why;
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 4096, {"rowelem", 256}); }).first, status::ok);  // 16 each
  // The seed's own configuration, and BLOCK_OL 16 in the variants that accept it.
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 16); }).first, status::ok);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<float>(2, 3, 16, {"rowtile"}); }).first, status::ok);
  EXPECT_EQ(code_of([] { ConstantPad1dBackward<__half>(2, 3, 16, {"flat", 256, 4}); }).first, status::ok);
}

TEST(JitKernel, ChecksLaunchArgumentsAgainstItsConstants) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  std::vector<float> dy(64), dx(64);
  problem_sizes z;
  EXPECT_EQ(k.check_arguments(dy.data(), dx.data(), 1, 2, 8, 13, nullptr, &z), status::ok);
  EXPECT_EQ(z.dx_elems, 16);
  std::string why;
  EXPECT_EQ(k.check_arguments(dy.data(), dx.data(), 1, 2, 8, 12, &why), status::shape_mismatch);
  EXPECT_NE(why.find("OL = 12, but constant_pad1d_backward__f32__2__3__16 has pad_left + L + pad_right = 2 + 8 + 3 = 13"),
            std::string::npos)
      << why;
  EXPECT_EQ(k.check_arguments(dy.data(), dx.data(), -1, 2, 8, 13), status::negative_size);
  EXPECT_EQ(k.check_arguments(nullptr, dx.data(), 1, 2, 8, 13), status::null_pointer);
  EXPECT_EQ(k.check_arguments(dy.data(), dy.data() + 1, 1, 2, 8, 13), status::overlapping_buffers);
  EXPECT_EQ(k.check_arguments(nullptr, nullptr, 0, 2, 8, 13), status::ok);  // no elements: a no-op

  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 2, 8, 2, 3, dtype::f32}, &why), status::ok) << why;
  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 2, 8, 2, 4, dtype::f32}, &why), status::shape_mismatch);
  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 2, 8, 2, 3, dtype::f64}, &why), status::dtype_mismatch);
  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 1, std::int64_t(1) << 31, 2, 3, dtype::f32}, &why),
            status::size_overflow);
  EXPECT_NE(why.find("L = 2147483648 does not fit the int32 launch arguments"), std::string::npos) << why;
  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 1, INT32_MAX - 4, 2, 3, dtype::f32}, &why),
            status::size_overflow);
  EXPECT_NE(why.find("OL = 2147483648"), std::string::npos) << why;
  EXPECT_EQ(k.can_implement(problem{dy.data(), dx.data(), 1, 1, INT64_MIN, 2, 3, dtype::f32}, &why),
            status::negative_size);
}

/// (variant, dtype): every kernel of the family compiles to PTX with its entry point.
class JitEveryVariant : public ::testing::TestWithParam<std::tuple<std::string_view, dtype>> {};

TEST_P(JitEveryVariant, CompilesToPtxWithTheEntryPoint) {
  const auto [variant, type] = GetParam();
  const int block_ol = variant == "seed" ? 16 : 1024;  // the seed's own BLOCK_OL; a registry tile for the others
  const kernel k(type, 2, 3, block_ol, {std::string(variant)});
  const compiled c = compile(k, {image_format::ptx, "sm_90", false, {}});
  EXPECT_EQ(c.cache, cache_outcome::off);
  EXPECT_NE(c.image.find(".entry " + k.entry_point_name() + "("), std::string::npos) << c.image.substr(0, 2000);
  EXPECT_NE(c.image.find(".target sm_90"), std::string::npos);
  EXPECT_EQ(c.log, "") << "NVRTC warns about " << k.id();
}

INSTANTIATE_TEST_SUITE_P(Family, JitEveryVariant,
                         ::testing::Combine(::testing::ValuesIn(jit_variants()), ::testing::ValuesIn(all_dtypes)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  std::string(name_of(std::get<1>(info.param)));
                         });

TEST(JitCompile, CompilesACubinForANamedArchitecture) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  const compiled c = compile(k, {image_format::cubin, "sm_90", false, {}});
  ASSERT_GE(c.image.size(), 4u);
  EXPECT_EQ(c.image.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(c.arch, "sm_90");
  EXPECT_EQ(c.nvrtc_version, nvrtc_version());
}

TEST(JitCompile, TargetsTheGpuItRunsOnOrPtxWhereNvrtcIsOlder) {
  const std::vector<int> supported = nvrtc_architectures();
  ASSERT_FALSE(supported.empty());
  for (int a : {80, 86, 89, 90, 100, 120})  // the architectures the package carries SASS for
    EXPECT_NE(std::find(supported.begin(), supported.end(), a), supported.end()) << "NVRTC " << nvrtc_version() << ": sm_" << a;
  const jit_target own = device_target(90, supported, image_format::cubin);
  EXPECT_EQ(own.arch, "sm_90");
  EXPECT_EQ(own.format, image_format::cubin);
  const jit_target later = device_target(supported.back() + 37, supported, image_format::cubin);  // a GPU after this NVRTC
  EXPECT_EQ(later.arch, fmt::format("sm_{}", supported.back()));
  EXPECT_EQ(later.format, image_format::ptx);
  const jit_target between = device_target(95, {80, 90, 100}, image_format::cubin);  // unknown to NVRTC, newer than sm_90
  EXPECT_EQ(between.arch, "sm_90");
  EXPECT_EQ(between.format, image_format::ptx);
  EXPECT_THROW(device_target(70, {75, 80}, image_format::cubin), error);
  // PTX for a later GPU compiles here (the driver would finish it on that GPU).
  const ConstantPad1dBackward<float> k(2, 3, 16);
  const compiled c = compile(k, {later.format, later.arch, false, {}});
  EXPECT_NE(c.image.find(".target sm_" + std::to_string(supported.back())), std::string::npos);
}

TEST(JitCompile, RefusesAMalformedArchitecture) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  try {
    compile(k, {image_format::ptx, "ampere", false, {}});
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_config);
    EXPECT_NE(std::string(e.what()).find("'ampere'"), std::string::npos);
  }
}

TEST(JitCompile, ABrokenSourceGivesNvrtcsLog) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  const kernel broken = k.with_kernel_source(k.kernel_source() + "\n__device__ int broken = padtune_no_such_name;\n");
  try {
    compile(broken, {image_format::ptx, "sm_90", false, {}});
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::compile_failed);
    const std::string what = e.what();
    EXPECT_NE(what.find("padtune_no_such_name"), std::string::npos) << what;
    EXPECT_NE(what.find("is undefined"), std::string::npos) << what;
    EXPECT_NE(what.find(k.id()), std::string::npos) << what;
  }
}

TEST_F(JitCache, HitsTheSecondTimeAndMissesWhenTheSourceChanges) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  const compiled first = compile(k, ptx_options());
  EXPECT_EQ(first.cache, cache_outcome::miss);
  EXPECT_TRUE(first.cache_warning.empty()) << first.cache_warning;
  ASSERT_TRUE(fs::exists(first.cache_file));
  EXPECT_EQ(first.cache_file.parent_path(), dir);
  EXPECT_NE(first.cache_file.filename().string().find(k.hash()), std::string::npos);

  const compiled second = compile(k, ptx_options());
  EXPECT_TRUE(second.from_cache());
  EXPECT_EQ(second.image, first.image);
  EXPECT_LT(second.seconds, first.seconds);
  std::cout << "NVRTC compile " << first.seconds << " s, cache hit " << second.seconds << " s\n";

  const compiled edited = compile(k.with_kernel_source(k.kernel_source() + "// edited\n"), ptx_options());
  EXPECT_EQ(edited.cache, cache_outcome::miss);
  EXPECT_NE(edited.cache_file, first.cache_file);

  compile_options other_arch = ptx_options();
  other_arch.arch = "sm_80";
  EXPECT_EQ(compile(k, other_arch).cache, cache_outcome::miss);
  compile_options cubin = ptx_options();
  cubin.format = image_format::cubin;
  EXPECT_EQ(compile(k, cubin).cache, cache_outcome::miss);
  EXPECT_EQ(entries().size(), 4u);
}

TEST_F(JitCache, ABadEntryIsRecompiledAndRewritten) {
  const ConstantPad1dBackward<double> k(1, 1, 64);
  const compiled good = compile(k, ptx_options());
  const std::string whole = read_file(good.cache_file);
  const std::string bad_entries[] = {"", whole.substr(0, whole.size() / 2), whole.substr(0, whole.size() - 1),
                                     whole + "x", "not a cache entry\n", std::string(whole).replace(whole.size() - 10, 1, "#")};
  for (const std::string& bad : bad_entries) {
    std::ofstream(good.cache_file, std::ios::binary | std::ios::trunc) << bad;
    const compiled again = compile(k, ptx_options());
    EXPECT_EQ(again.cache, cache_outcome::replaced_entry) << bad.size() << " bytes";
    EXPECT_EQ(again.image, good.image);
    EXPECT_EQ(read_file(good.cache_file), whole);
    EXPECT_TRUE(compile(k, ptx_options()).from_cache());
  }
}

TEST_F(JitCache, AnEntryOfAnotherSourceWithTheSameNameIsAMiss) {
  const ConstantPad1dBackward<float> k(2, 3, 16), other(5, 5, 16);
  const compiled a = compile(k, ptx_options()), b = compile(other, ptx_options());
  fs::copy_file(b.cache_file, a.cache_file, fs::copy_options::overwrite_existing);  // as a hash collision would
  const compiled again = compile(k, ptx_options());
  EXPECT_EQ(again.cache, cache_outcome::replaced_entry);
  EXPECT_EQ(again.image, a.image);
}

TEST_F(JitCache, ConcurrentCompilesOfOneKeyLeaveOneWholeEntry) {
  const ConstantPad1dBackward<__nv_bfloat16> k(3, 1, 1024, {"flatvec"});
  // Processes first (each forks before any thread of this test starts), then threads.
  std::vector<pid_t> children;
  for (int i = 0; i < 3; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      bool ok = false;
      try {
        ok = !compile(k, ptx_options()).image.empty();
      } catch (...) {
      }
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  std::vector<compiled> results(4);
  std::vector<std::thread> threads;
  for (compiled& r : results) threads.emplace_back([&] { r = compile(k, ptx_options()); });
  for (std::thread& t : threads) t.join();
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (const compiled& r : results) EXPECT_EQ(r.image, results[0].image);
  const std::vector<fs::path> files = entries();
  ASSERT_EQ(files.size(), 1u);  // no temporary file left behind
  EXPECT_EQ(files[0], results[0].cache_file);
  const compiled after = compile(k, ptx_options());
  EXPECT_TRUE(after.from_cache());
  EXPECT_EQ(after.image, results[0].image);
}

TEST_F(JitCache, AnUnwritableCacheIsAWarningNotAnError) {
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  compile_options opts = ptx_options();
  opts.cache_dir = dir / "file" / "jit";  // a folder inside a file cannot be made
  const compiled c = compile(ConstantPad1dBackward<float>(2, 3, 16), opts);
  EXPECT_FALSE(c.image.empty());
  EXPECT_FALSE(c.cache_warning.empty());
}

// A cache folder behind a link loop (ELOOP, even for root) is a miss and a warning: reading the
// entry once threw std::filesystem::filesystem_error out of compile().
TEST_F(JitCache, ACacheFolderBehindALinkLoopIsAWarningNotAnError) {
  fs::create_directories(dir);
  fs::create_directory_symlink(dir / "b", dir / "a");
  fs::create_directory_symlink(dir / "a", dir / "b");
  compile_options opts = ptx_options();
  opts.cache_dir = dir / "a" / "jit";
  const compiled c = compile(ConstantPad1dBackward<float>(2, 3, 16), opts);
  EXPECT_FALSE(c.image.empty());
  EXPECT_FALSE(c.cache_warning.empty());
}

TEST(JitCacheFolder, FollowsTheEnvironment) {
  const auto saved = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v) setenv(name, v->c_str(), 1);
    else unsetenv(name);
  };
  const auto jit = saved("PADTUNE_JIT_CACHE"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  setenv("PADTUNE_JIT_CACHE", "/tmp/a", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/a"));
  unsetenv("PADTUNE_JIT_CACHE");
  setenv("XDG_CACHE_HOME", "/tmp/x", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/x/padtune/jit"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/tmp/h", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/h/.cache/padtune/jit"));
  restore("PADTUNE_JIT_CACHE", jit);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

}  // namespace
}  // namespace padtune::jit
