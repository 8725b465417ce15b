// The work team over MPI: point-to-point messages of JSON text on a communicator of its own, polled
// with MPI_Iprobe so that a rank that waits sleeps instead of spinning (ranks share cores under
// --oversubscribe, and rank 0 polls between its own measurements). Sends do not wait for the
// receiver: rank 0 receives only between two of its own measurements.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <list>
#include <thread>

#include "padtune/team/launcher_env.hpp"
#include "padtune/team/work_team.hpp"

namespace padtune::tuner {
namespace {

constexpr int message_tag = 8;  // every message of the protocol; its JSON says what it is

class mpi_team final : public work_team {
 public:
  mpi_team() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm host;  // the ranks that share this host's memory: the GPUs of one machine
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local_rank_);
    MPI_Comm_free(&host);
  }

  ~mpi_team() override {
    finish_sends(true);
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }

  std::vector<std::string> all_gather(const std::string& mine) override {
    int length = int(mine.size());
    const auto ranks = std::size_t(size_);
    std::vector<int> lengths(ranks), offsets(ranks);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_);
    int total = 0;
    for (int r = 0; r < size_; ++r) offsets[std::size_t(r)] = total, total += lengths[std::size_t(r)];
    std::string all(std::size_t(total), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm_);
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(std::size_t(offsets[std::size_t(r)]), std::size_t(lengths[std::size_t(r)])));
    return out;
  }

  /// Returns at once: the text is kept until the send completes (MPI keeps the order of the sends).
  void send(int to, const std::string& text) override {
    finish_sends(false);
    outgoing& o = sending_.emplace_back();
    o.text = text;
    MPI_Isend(o.text.data(), int(o.text.size()), MPI_CHAR, to, message_tag, comm_, &o.request);
  }

  std::optional<team_message> receive(int from, double seconds) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      finish_sends(false);
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(from < 0 ? MPI_ANY_SOURCE : from, message_tag, comm_, &arrived, &status);
      if (arrived) {
        int length = 0;
        MPI_Get_count(&status, MPI_CHAR, &length);
        team_message m{status.MPI_SOURCE, std::string(std::size_t(length), '\0')};
        MPI_Recv(m.text.data(), length, MPI_CHAR, status.MPI_SOURCE, message_tag, comm_, MPI_STATUS_IGNORE);
        return m;
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(comm_, code);
    std::_Exit(code);
  }

 private:
  struct outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    std::string text;  ///< the send's buffer, alive until it completes
  };

  /// Forgets the sends that completed; with wait, first waits for all of them.
  void finish_sends(bool wait) {
    for (auto it = sending_.begin(); it != sending_.end();) {
      int done = 1;
      if (wait) MPI_Wait(&it->request, MPI_STATUS_IGNORE);
      else MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? sending_.erase(it) : std::next(it);
    }
  }

  std::list<outgoing> sending_;  // a list: a send's buffer must not move
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace

std::unique_ptr<work_team> join_launched_team() {
  // Only a launch of several processes starts MPI: mpirun -np 1 and a plain run are today's run.
  if (launched_world_size() <= 1) return nullptr;
  return std::make_unique<mpi_team>();
}

bool built_with_mpi() { return true; }

}  // namespace padtune::tuner
