#pragma once
// The one list of compiled instantiations: per variant, X(BLOCK_OL, MAX_THREADS, W).
// Every entry is compiled for every dtype; entries that are not valid for a dtype (an access width
// below the element size, a tile smaller than one access) are skipped at compile time. The
// registry, the CLI, the tests and the tuner all read this list through padtune::registry().
// threads per block = min(MAX_THREADS, what the tile can keep busy); W is the access width in bytes
// (the seed ignores it and moves one element per access, as the seed does).

#define PADTUNE_SEED_CONFIGS(X)                                                                   \
  X(64, 256, 0) X(128, 256, 0) X(256, 256, 0) X(512, 256, 0) X(1024, 256, 0) X(2048, 256, 0)     \
  X(4096, 256, 0) X(8192, 256, 0)

#define PADTUNE_ROWTILE_CONFIGS(X)                                                                \
  X(64, 256, 16) X(256, 256, 16) X(512, 256, 16) X(1024, 256, 16) X(2048, 256, 16)               \
  X(4096, 256, 16) X(8192, 256, 16) X(8192, 512, 16) X(2048, 256, 8) X(2048, 256, 4)

#define PADTUNE_FLAT_CONFIGS(X)                                                                   \
  X(64, 256, 16) X(256, 256, 16) X(512, 256, 16) X(1024, 256, 16) X(2048, 256, 16)               \
  X(4096, 256, 16) X(1024, 256, 8)

// One element per thread: tiny problems, where a launch is latency and code size shows.
#define PADTUNE_EWISE_CONFIGS(X) X(64, 64, 0) X(128, 128, 0) X(256, 256, 0) X(512, 512, 0) X(1024, 1024, 0)

// A row tile per block, element by element (the Triton peer's kernel): tiles up to 16 elements a thread.
#define PADTUNE_ROWELEM_CONFIGS(X)                                                                \
  X(64, 64, 0) X(256, 128, 0) X(512, 128, 0) X(1024, 128, 0) X(1024, 256, 0) X(2048, 256, 0)     \
  X(4096, 256, 0) X(4096, 512, 0)

// The same tiles as flat, so that each is compared with and without wide loads.
#define PADTUNE_FLATVEC_CONFIGS(X) PADTUNE_FLAT_CONFIGS(X)

// A block stages 1.25 times its tile in static shared memory (at most 48 KB), so the larger tiles exist
// for the narrower dtypes only; large tiles on few threads keep the most bytes in flight per SM.
#define PADTUNE_STAGED_CONFIGS(X)                                                                 \
  X(256, 64, 16) X(1024, 128, 16) X(2048, 128, 16) X(4096, 128, 16) X(4096, 256, 16) X(8192, 128, 16) \
  X(8192, 256, 16) X(16384, 256, 16)
