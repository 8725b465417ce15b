// The team run's protocol without MPI: ranks as threads of one process, over an in-process
// work_team; and what counts as an MPI launch.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "padtune/team/launcher_env.hpp"
#include "quick_tune.hpp"
#include "padtune/search/tune.hpp"
#include "padtune/team/work_team.hpp"

namespace padtune::tuner {
namespace {

/// What the ranks of a thread_team share: a mailbox per rank and the one all_gather.
struct team_post {
  explicit team_post(int n) : boxes(std::size_t(n)), gathered(std::size_t(n)) {}
  std::mutex m;
  std::condition_variable changed;
  std::vector<std::deque<team_message>> boxes;
  std::vector<std::string> gathered;
  int gathered_count = 0;
};

class thread_team final : public work_team {
 public:
  thread_team(team_post& post, int rank) : post_(post), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return int(post_.boxes.size()); }
  int local_rank() const override { return rank_; }
  std::vector<std::string> all_gather(const std::string& mine) override {
    std::unique_lock lock(post_.m);
    post_.gathered[std::size_t(rank_)] = mine;
    ++post_.gathered_count;
    post_.changed.notify_all();
    post_.changed.wait(lock, [&] { return post_.gathered_count == size(); });
    return post_.gathered;
  }
  void send(int to, const std::string& text) override {
    const std::lock_guard lock(post_.m);
    post_.boxes[std::size_t(to)].push_back({rank_, text});
    post_.changed.notify_all();
  }
  std::optional<team_message> receive(int from, double seconds) override {
    std::unique_lock lock(post_.m);
    auto& box = post_.boxes[std::size_t(rank_)];
    auto match = [&] { return std::find_if(box.begin(), box.end(), [&](const team_message& x) { return from < 0 || x.from == from; }); };
    if (!post_.changed.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return match() != box.end(); }))
      return std::nullopt;
    const auto it = match();
    team_message out = *it;
    box.erase(it);
    return out;
  }
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  team_post& post_;
  int rank_;
};

/// A fourth shape, so that three ranks have work to share.
tune_options team_options(const std::filesystem::path& dir) {
  tune_options o = quick_tune_options(dir);
  o.sizes.push_back({4, 3, 2000, 0, 0});
  o.command = "team_test";
  return o;
}

/// Runs one tune with `ranks` threads as ranks; returns their reports, rank 0's first.
std::vector<tune_report> run_team(const tune_options& base, int ranks) {
  team_post post(ranks);
  std::vector<thread_team> teams;
  for (int r = 0; r < ranks; ++r) teams.emplace_back(post, r);
  std::vector<tune_report> reports(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      tune_options o = base;
      o.team = &teams[std::size_t(r)];
      reports[std::size_t(r)] = run_tune(o, nullptr);
    });
  for (std::thread& t : threads) t.join();
  return reports;
}

std::vector<std::string> cache_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Team, ThreeRanksShareTheWorkAndRankZeroWritesEachMeasurementOnce) {
  const auto dir = std::filesystem::temp_directory_path() / "padtune_team_test";
  std::filesystem::remove_all(dir);
  const tune_options o = team_options(dir);
  std::size_t pairs = 0;
  for (dtype t : o.dtypes) pairs += o.sizes.size() * (candidates_for(t, o).size() + 1);

  const std::vector<tune_report> first = run_team(o, 3);
  EXPECT_EQ(first[0].measured, pairs);  // rank 0 counts what the others streamed to it
  EXPECT_EQ(first[0].from_cache, 0u);
  EXPECT_GT(first[1].measured + first[2].measured, 0u) << "rank 0 measured everything alone";
  EXPECT_LT(first[0].measured - first[1].measured - first[2].measured, pairs);
  EXPECT_EQ(first[0].table_path, dir / "host-emulation.json");
  EXPECT_TRUE(first[1].table_path.empty()) << "only rank 0 writes";
  const results_table t = read_table(first[0].table_path);
  EXPECT_TRUE(t.complete);
  EXPECT_EQ(t.entries.size(), 8u);  // 4 shapes of 4 buckets, per dtype
  const std::vector<std::string> lines = cache_lines(first[0].cache_path);
  ASSERT_EQ(lines.size(), pairs + 1);  // the header, then each measurement once
  EXPECT_EQ(std::set<std::string>(lines.begin() + 1, lines.end()).size(), pairs);

  const std::vector<tune_report> second = run_team(o, 2);  // a team resumes from the cache too
  EXPECT_EQ(second[0].measured, 0u);
  EXPECT_EQ(second[0].from_cache, pairs);
  EXPECT_EQ(second[1].measured, 0u);
  EXPECT_EQ(cache_lines(first[0].cache_path).size(), pairs + 1);
}

TEST(Team, ATeamOfOneIsTheSingleProcessRun) {
  const auto dir = std::filesystem::temp_directory_path() / "padtune_team_test_one";
  std::filesystem::remove_all(dir);
  const std::vector<tune_report> r = run_team(team_options(dir), 1);
  EXPECT_GT(r[0].measured, 0u);
  EXPECT_TRUE(std::filesystem::exists(dir / "host-emulation.json"));
}

/// Sets environment variables for one test, and puts back what was there.
class scoped_env {
 public:
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~scoped_env() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(Team, AnMpiLaunchIsToldByTheLaunchersVariables) {
  scoped_env env;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"}) env.set(name, nullptr);
  EXPECT_EQ(launched_world_size(), 1);
  env.set("SLURM_NTASKS", "4");  // plain srun: independent tasks (the --shard fallback), not a team
  EXPECT_EQ(launched_world_size(), 1);
  env.set("PMIX_RANK", "0");  // srun --mpi=pmix
  EXPECT_EQ(launched_world_size(), 4);
  env.set("PMI_SIZE", "2");  // srun --mpi=pmi2, MPICH
  EXPECT_EQ(launched_world_size(), 2);
  env.set("OMPI_COMM_WORLD_SIZE", "3");  // OpenMPI's mpirun
  EXPECT_EQ(launched_world_size(), 3);
  env.set("OMPI_COMM_WORLD_SIZE", "x");
  EXPECT_EQ(launched_world_size(), 2);
}

}  // namespace
}  // namespace padtune::tuner
