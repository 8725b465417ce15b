#pragma once
// The processes of one `padtune tune` launched together (mpirun, srun --mpi): the seam between the
// tune run and the engine that carries its messages. tune_team.cpp holds the protocol; the engine
// is MPI (mpi_team.cpp, built only where CMake found MPI). Without it, or launched alone, there is
// no team and the run is the single-process one.
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace padtune::tuner {

struct team_message {
  int from = -1;
  std::string text;  ///< a JSON text
};

class work_team {
 public:
  virtual ~work_team() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This rank among the ranks on its host: it picks the GPU.
  virtual int local_rank() const = 0;
  /// Collective: every rank's text, in rank order.
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
  /// Sends one message to a rank; returns at once, without waiting for the receiver (the text is
  /// copied).
  virtual void send(int to, const std::string& text) = 0;
  /// The next message from `from` (any rank when -1), waiting at most `seconds` without spinning
  /// the CPU; nullopt when none came.
  virtual std::optional<team_message> receive(int from, double seconds) = 0;
  /// Ends every rank of the team with this exit code: one rank cannot go on, and the others would
  /// wait for it forever.
  [[noreturn]] virtual void abort(int code) = 0;
};

/// The team this process was launched in (the launcher's variables say so: OMPI_COMM_WORLD_SIZE,
/// PMI_SIZE, PMIX_RANK), or nullptr when it was started alone. Throws std::runtime_error when it
/// was launched as one of several processes by a padtune built without MPI.
std::unique_ptr<work_team> join_launched_team();

/// True if this padtune was built with MPI.
bool built_with_mpi();

}  // namespace padtune::tuner
