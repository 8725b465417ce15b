/* The C ABI from C: every dtype on the host backend against a reference computed here, byte for
 * byte (fresh non-zero data, dx poisoned, guard bytes around dx); the error paths and their
 * messages; the thread-local last error; explain; and, where a CUDA device is present, the same on
 * the GPU through padtune_constant_pad1d_backward on a stream. Exit 1 on any failure. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "padtune_c.h"

#ifndef PADTUNE_EXPECTED_VERSION
#error "PADTUNE_EXPECTED_VERSION must be defined by the build"
#endif

enum { guard_bytes = 64, poison = 0xA5, guard = 0x5C };

static int failures = 0;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      ++failures;                                                 \
      fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
    }                                                             \
  } while (0)

typedef struct shape {
  int64_t B, C, L, pl, pr;
} shape;

static const shape shapes[] = {
    {2, 3, 17, 3, 5},     /* both pads positive */
    {1, 4, 64, -5, 2},    /* crop on the left */
    {3, 2, 33, 4, -7},    /* crop on the right */
    {2, 2, 100, -10, -20},
    {1, 1, 1, 0, 0},
    {2, 5, 1000, 7, 9},
    {4, 8, 4099, 13, -11}, /* long rows */
    {1, 3, 8, -8, 4},      /* the whole row cropped on the left, OL = 4 */
    {2, 3, 0, 2, 3},       /* no elements in dx: nothing is written */
};
static const padtune_dtype dtypes[] = {PADTUNE_F32, PADTUNE_F64, PADTUNE_F16, PADTUNE_BF16};
static const char* const dtype_names[] = {"f32", "f64", "f16", "bf16"};
static const size_t elem_sizes[] = {4, 8, 2, 2};

/* xorshift64*: reproducible, seeded per run so that a failure can be replayed. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

/* n finite, non-zero, random elements of dtype t (f16 and bf16 as bit patterns). */
static void fill_random(void* out, int64_t n, padtune_dtype t) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = next_random();
    const double sign = (r >> 63) ? -1.0 : 1.0;
    switch (t) {
      case PADTUNE_F32: ((float*)out)[i] = (float)(sign * (double)((r >> 8) % 1000003 + 1) / 1024.0); break;
      case PADTUNE_F64: ((double*)out)[i] = sign * (double)((r >> 8) % 100000007 + 1) / 65536.0; break;
      case PADTUNE_F16: /* exponent 1..30: normal, neither zero nor inf/NaN */
        ((uint16_t*)out)[i] = (uint16_t)(((r >> 63) << 15) | ((1 + (r >> 20) % 30) << 10) | (r & 0x3FF));
        break;
      case PADTUNE_BF16: /* exponent 1..254 */
        ((uint16_t*)out)[i] = (uint16_t)(((r >> 63) << 15) | ((1 + (r >> 20) % 254) << 7) | (r & 0x7F));
        break;
      default: abort();
    }
  }
}

/* The contract, on bytes: dx[b,c,i] = dy[b,c,i+pl] where 0 <= i+pl < OL, else the fill's es low
 * bytes (little-endian). */
static void reference(const unsigned char* dy, unsigned char* dx, shape s, size_t es, uint64_t fill) {
  const int64_t OL = s.pl + s.L + s.pr;
  for (int64_t row = 0; row < s.B * s.C; ++row)
    for (int64_t i = 0; i < s.L; ++i) {
      const int64_t j = i + s.pl;
      unsigned char* out = dx + (size_t)(row * s.L + i) * es;
      if (j >= 0 && j < OL)
        memcpy(out, dy + (size_t)(row * OL + j) * es, es);
      else
        memcpy(out, &fill, es);
    }
}

static int bytes_are(const unsigned char* p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != v) return 0;
  return 1;
}

/* The first element at which a and b differ, or -1. */
static long long first_difference(const unsigned char* a, const unsigned char* b, size_t n, size_t es) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return (long long)(i / es);
  return -1;
}

typedef struct buffers {
  unsigned char* dy;
  unsigned char* dy_copy;
  unsigned char* dx_alloc; /* guard, dx, guard */
  unsigned char* dx;
  unsigned char* ref;
  size_t dy_bytes, dx_bytes;
} buffers;

static buffers make_buffers(shape s, padtune_dtype t, size_t es) {
  buffers b;
  const int64_t OL = s.pl + s.L + s.pr;
  b.dy_bytes = (size_t)(s.B * s.C * OL) * es;
  b.dx_bytes = (size_t)(s.B * s.C * s.L) * es;
  b.dy = malloc(b.dy_bytes + 8);
  b.dy_copy = malloc(b.dy_bytes + 8);
  b.dx_alloc = malloc(b.dx_bytes + 2 * guard_bytes);
  b.ref = malloc(b.dx_bytes + 8);
  if (!b.dy || !b.dy_copy || !b.dx_alloc || !b.ref) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  b.dx = b.dx_alloc + guard_bytes;
  fill_random(b.dy, s.B * s.C * OL, t);
  memcpy(b.dy_copy, b.dy, b.dy_bytes);
  memset(b.dx_alloc, guard, guard_bytes);
  memset(b.dx, poison, b.dx_bytes);
  memset(b.dx + b.dx_bytes, guard, guard_bytes);
  reference(b.dy, b.ref, s, es, 0);
  return b;
}

static void free_buffers(buffers* b) {
  free(b->dy);
  free(b->dy_copy);
  free(b->dx_alloc);
  free(b->ref);
}

/* dx equals the reference, the guards and dy are untouched. */
static void check_result(const buffers* b, shape s, const char* what, const char* dtype_name, size_t es) {
  const long long at = first_difference(b->dx, b->ref, b->dx_bytes, es);
  CHECK(at < 0, "%s %s B=%lld C=%lld L=%lld pads %lld,%lld: dx differs from the reference at element %lld", what,
        dtype_name, (long long)s.B, (long long)s.C, (long long)s.L, (long long)s.pl, (long long)s.pr, at);
  CHECK(bytes_are(b->dx_alloc, guard_bytes, guard) && bytes_are(b->dx + b->dx_bytes, guard_bytes, guard),
        "%s %s L=%lld: a guard byte around dx was written", what, dtype_name, (long long)s.L);
  CHECK(memcmp(b->dy, b->dy_copy, b->dy_bytes) == 0, "%s %s L=%lld: dy was written", what, dtype_name,
        (long long)s.L);
}

static void test_host_dispatch(void) {
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
      const shape s = shapes[k];
      buffers b = make_buffers(s, dtypes[d], elem_sizes[d]);
      const padtune_status st =
          padtune_dispatch(PADTUNE_BACKEND_HOST, b.dy, b.dx, s.B, s.C, s.L, s.pl, s.pr, dtypes[d], NULL);
      CHECK(st == PADTUNE_OK, "host %s L=%lld: %s: %s", dtype_names[d], (long long)s.L, padtune_status_name(st),
            padtune_last_error());
      CHECK(padtune_last_error()[0] == '\0', "last error after a success: '%s'", padtune_last_error());
      check_result(&b, s, "host", dtype_names[d], elem_sizes[d]);
      free_buffers(&b);
    }
  /* OL = 0: dy holds no bytes and may be NULL; dx is all zeros. */
  {
    const shape s = {2, 3, 5, -3, -2};
    buffers b = make_buffers(s, PADTUNE_F32, 4);
    const padtune_status st = padtune_dispatch(PADTUNE_BACKEND_HOST, NULL, b.dx, s.B, s.C, s.L, s.pl, s.pr,
                                               PADTUNE_F32, NULL);
    CHECK(st == PADTUNE_OK, "OL = 0 with dy NULL: %s: %s", padtune_status_name(st), padtune_last_error());
    check_result(&b, s, "host OL=0", "f32", 4);
    free_buffers(&b);
  }
}

/* padtune_dispatch_fill with bits from padtune_fill_bits, every dtype and shape; a value a dtype
 * overflows is refused with its own status. */
static void test_host_fill(void) {
  static const uint64_t want_bits[] = {0xc0200000u, 0xc004000000000000u, 0xc100u, 0xc020u}; /* -2.5 */
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
    uint64_t fill = 0;
    const padtune_status bits = padtune_fill_bits(-2.5, dtypes[d], &fill);
    CHECK(bits == PADTUNE_OK && fill == want_bits[d], "padtune_fill_bits(-2.5, %s): %s, %#llx", dtype_names[d],
          padtune_status_name(bits), (unsigned long long)fill);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
      const shape s = shapes[k];
      buffers b = make_buffers(s, dtypes[d], elem_sizes[d]);
      reference(b.dy, b.ref, s, elem_sizes[d], fill);
      const padtune_status st = padtune_dispatch_fill(PADTUNE_BACKEND_HOST, b.dy, b.dx, s.B, s.C, s.L, s.pl, s.pr,
                                                      dtypes[d], fill, NULL);
      CHECK(st == PADTUNE_OK, "host fill %s L=%lld: %s: %s", dtype_names[d], (long long)s.L, padtune_status_name(st),
            padtune_last_error());
      check_result(&b, s, "host fill", dtype_names[d], elem_sizes[d]);
      free_buffers(&b);
    }
  }
  uint64_t fill = 7;
  CHECK(padtune_fill_bits(70000.0, PADTUNE_F16, &fill) == PADTUNE_ERROR_INVALID_FILL && fill == 7,
        "70000 as f16 was not refused");
  CHECK(strstr(padtune_last_error(), "overflows f16") != NULL, "message '%s'", padtune_last_error());
  float dy[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8];
  CHECK(padtune_dispatch_fill(PADTUNE_BACKEND_HOST, dy, dx, 1, 1, 4, 1, 1, PADTUNE_F16, 0x10000u, NULL) ==
            PADTUNE_ERROR_INVALID_FILL,
        "17 fill bits of an f16 were not refused");
}

/* A failing call: the status, a message that contains `needle`, and dx left as it was. */
static void expect_failure(padtune_status got, padtune_status want, const char* needle, const char* what) {
  const char* msg = padtune_last_error();
  CHECK(got == want, "%s: got %s (%d), want %s (%d); message '%s'", what, padtune_status_name(got), (int)got,
        padtune_status_name(want), (int)want, msg);
  CHECK(msg != NULL && strstr(msg, needle) != NULL, "%s: the message '%s' does not contain '%s'", what,
        msg ? msg : "(null)", needle);
}

static void test_errors(void) {
  float dy[64], dx[64];
  memset(dy, 0, sizeof dy);
  memset(dx, poison, sizeof dx);
  const padtune_backend H = PADTUNE_BACKEND_HOST;

  expect_failure(padtune_dispatch(H, NULL, dx, 2, 2, 4, 1, 1, PADTUNE_F32, NULL), PADTUNE_ERROR_NULL_POINTER,
                 "dy is null", "NULL dy");
  CHECK(bytes_are((const unsigned char*)dx, sizeof dx, poison), "a failed call wrote dx");
  expect_failure(padtune_dispatch(H, dy, NULL, 2, 2, 4, 1, 1, PADTUNE_F32, NULL), PADTUNE_ERROR_NULL_POINTER,
                 "dx is null", "NULL dx");
  expect_failure(padtune_dispatch(H, dy, dx, 2, 2, 4, 1, 1, (padtune_dtype)7, NULL), PADTUNE_ERROR_UNKNOWN_DTYPE,
                 "unknown dtype (value 7)", "dtype 7");
  expect_failure(padtune_dispatch(H, dy, dx, 2, 2, -1, 1, 1, PADTUNE_F32, NULL), PADTUNE_ERROR_NEGATIVE_SIZE,
                 "L must be >= 0, got -1", "negative L");
  expect_failure(padtune_dispatch(H, dy, dx, 1, 1, 4, -10, 2, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_NEGATIVE_OUTPUT_LENGTH, "is negative", "negative OL");
  expect_failure(padtune_dispatch(H, dy, dx, (int64_t)1 << 40, (int64_t)1 << 40, 4, 0, 0, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_SIZE_OVERFLOW, "overflows 64 bits", "B*C*L past 64 bits");
  /* dy is 2*2*6 = 24 floats from dy[0]; dx 2*2*4 = 16 floats from dy[8]. */
  expect_failure(padtune_dispatch(H, dy, dy + 8, 2, 2, 4, 1, 1, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_OVERLAPPING_BUFFERS, "overlap", "overlapping buffers");
  expect_failure(padtune_dispatch(H, dy, (char*)dx + 1, 2, 2, 4, 1, 1, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_MISALIGNED_POINTER, "not aligned to 4 bytes", "misaligned dx");
  expect_failure(padtune_dispatch((padtune_backend)5, dy, dx, 2, 2, 4, 1, 1, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_UNSUPPORTED_BACKEND, "unknown backend (value 5)", "backend 5");
  /* An empty problem is refused on a bad backend too, as padtune_explain refuses it. */
  expect_failure(padtune_dispatch((padtune_backend)7, NULL, NULL, 0, 4, 4, 1, 1, PADTUNE_F32, NULL),
                 PADTUNE_ERROR_UNSUPPORTED_BACKEND, "unknown backend (value 7)", "backend 7, no rows");
  CHECK(bytes_are((const unsigned char*)dx, sizeof dx, poison), "a failed call wrote dx");

  /* A success clears the last error. */
  CHECK(padtune_last_error()[0] != '\0', "the last error is empty after a failure");
  CHECK(padtune_dispatch(H, dy, dx, 2, 2, 4, 1, 1, PADTUNE_F32, NULL) == PADTUNE_OK, "%s", padtune_last_error());
  CHECK(padtune_last_error()[0] == '\0', "the last error after a success is '%s'", padtune_last_error());
}

static void test_names_and_versions(void) {
  CHECK(padtune_api_version() == PADTUNE_C_API_VERSION, "library API %d, header %d", padtune_api_version(),
        PADTUNE_C_API_VERSION);
  CHECK(strcmp(padtune_version(), PADTUNE_EXPECTED_VERSION) == 0, "version '%s', project '%s'", padtune_version(),
        PADTUNE_EXPECTED_VERSION);
  CHECK(strcmp(padtune_status_name(PADTUNE_OK), "ok") == 0, "%s", padtune_status_name(PADTUNE_OK));
  CHECK(strcmp(padtune_status_name(PADTUNE_ERROR_OVERLAPPING_BUFFERS), "overlapping_buffers") == 0, "%s",
        padtune_status_name(PADTUNE_ERROR_OVERLAPPING_BUFFERS));
  CHECK(strcmp(padtune_status_name(PADTUNE_ERROR_SHAPE_MISMATCH), "shape_mismatch") == 0, "%s",
        padtune_status_name(PADTUNE_ERROR_SHAPE_MISMATCH));
  CHECK(strcmp(padtune_status_name(PADTUNE_ERROR_INVALID_FILL), "invalid_fill") == 0, "%s",
        padtune_status_name(PADTUNE_ERROR_INVALID_FILL));
  CHECK(strcmp(padtune_status_name(PADTUNE_ERROR_INTERNAL), "internal") == 0, "%s",
        padtune_status_name(PADTUNE_ERROR_INTERNAL));
  CHECK(strcmp(padtune_status_name((padtune_status)55), "unknown_status") == 0, "%s",
        padtune_status_name((padtune_status)55));
}

static void test_explain(void) {
  const char* text = padtune_explain(32, 256, 8192, 3, 5, PADTUNE_F32, PADTUNE_BACKEND_HOST);
  CHECK(text != NULL, "explain failed: %s", padtune_last_error());
  if (text) {
    CHECK(strstr(text, "instantiation: constant_pad1d_backward__f32__") != NULL, "explain says:\n%s", text);
    CHECK(strstr(text, "\nbucket: l13_r13_a4\n") != NULL, "explain says:\n%s", text);
    CHECK(strstr(text, "\ntable: ") && strstr(text, "\nmatched_bucket: ") && strstr(text, "\nreason: "),
          "explain says:\n%s", text);
    CHECK(strstr(text, "\nserved_by: exact\n") || strstr(text, "\nserved_by: bucket\n") ||
              strstr(text, "\nserved_by: fallback\n"),
          "explain says:\n%s", text);
  }
  text = padtune_explain(4, 8, 100, -3, 2, PADTUNE_BF16, PADTUNE_BACKEND_HOST);
  CHECK(text != NULL && strstr(text, "instantiation: constant_pad1d_backward__bf16__") != NULL, "explain says:\n%s",
        text ? text : padtune_last_error());
  CHECK(padtune_explain(4, 8, 100, -3, 2, (padtune_dtype)9, PADTUNE_BACKEND_HOST) == NULL,
        "explain took dtype 9");
  CHECK(strstr(padtune_last_error(), "unknown dtype") != NULL, "explain's error: '%s'", padtune_last_error());
  CHECK(padtune_explain(1, 1, 4, -10, 2, PADTUNE_F32, PADTUNE_BACKEND_HOST) == NULL, "explain took OL < 0");
  CHECK(strstr(padtune_last_error(), "is negative") != NULL, "explain's error: '%s'", padtune_last_error());

  /* A results path that cannot be read is passed over, and explain says so; NULL returns to the
   * default lookup. */
  CHECK(padtune_set_results_path("/nonexistent/padtune-c-abi.json", 0) == PADTUNE_OK, "%s", padtune_last_error());
  text = padtune_explain(2, 8, 4096, 3, 5, PADTUNE_F32, PADTUNE_BACKEND_HOST);
  CHECK(text != NULL && strstr(text, "/nonexistent/padtune-c-abi.json from set_results_path could not be read"),
        "explain with a missing results path says:\n%s", text ? text : padtune_last_error());
  CHECK(padtune_last_error()[0] == '\0', "the last error after a successful explain is '%s'", padtune_last_error());
  CHECK(padtune_set_results_path(NULL, 0) == PADTUNE_OK, "%s", padtune_last_error());
  text = padtune_explain(2, 8, 4096, 3, 5, PADTUNE_F32, PADTUNE_BACKEND_HOST);
  CHECK(text != NULL && strstr(text, "could not be read") == NULL, "explain after resetting the path says:\n%s",
        text ? text : padtune_last_error());

  /* First-use timing on and off (what it chooses is tested in C++: tests/host/dispatch_test.cpp). */
  CHECK(padtune_set_autotune(1) == PADTUNE_OK, "%s", padtune_last_error());
  {
    float dy[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, dx[8] = {0};
    CHECK(padtune_dispatch(PADTUNE_BACKEND_HOST, dy, dx, 1, 2, 4, 1, 1, PADTUNE_F32, NULL) == PADTUNE_OK, "%s",
          padtune_last_error());
    CHECK(dx[0] == 2 && dx[3] == 5 && dx[4] == 8 && dx[7] == 11, "dx with first-use timing on: %g %g %g %g", dx[0], dx[3],
          dx[4], dx[7]);
  }
  CHECK(padtune_set_autotune(0) == PADTUNE_OK, "%s", padtune_last_error());
}

/* The last error is per thread: a thread's calls neither see nor change another's. */
static void* other_thread(void* arg) {
  int* ok = arg;
  float dy[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8];
  *ok = padtune_last_error()[0] == '\0';
  *ok = *ok && padtune_dispatch(PADTUNE_BACKEND_HOST, dy, NULL, 1, 1, 4, 2, 2, PADTUNE_F32, NULL) ==
                   PADTUNE_ERROR_NULL_POINTER;
  *ok = *ok && strstr(padtune_last_error(), "dx is null") != NULL;
  *ok = *ok && padtune_dispatch(PADTUNE_BACKEND_HOST, dy, dx, 1, 1, 4, 2, 2, PADTUNE_F32, NULL) == PADTUNE_OK &&
        dx[0] == 3 && dx[3] == 6;
  return NULL;
}

static void test_threads(void) {
  float dx[4];
  CHECK(padtune_dispatch(PADTUNE_BACKEND_HOST, NULL, dx, 1, 1, 4, 0, 0, PADTUNE_F32, NULL) ==
            PADTUNE_ERROR_NULL_POINTER,
        "NULL dy accepted");
  int ok = 0;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, other_thread, &ok) == 0, "pthread_create");
  pthread_join(t, NULL);
  CHECK(ok, "another thread saw this thread's last error, or its own calls failed");
  CHECK(strstr(padtune_last_error(), "dy is null") != NULL, "this thread's last error became '%s'",
        padtune_last_error());
}

/* On the GPU: device buffers, a stream, and the dispatcher of the current device. */
static int check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    ++failures;
    fprintf(stderr, "FAILED: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
  }
  return 1;
}

static void test_gpu(int device_count) {
  cudaStream_t stream;
  if (!check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate")) return;
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
      const shape s = shapes[k];
      buffers b = make_buffers(s, dtypes[d], elem_sizes[d]);
      unsigned char *ddy = NULL, *ddx = NULL;
      if (check_cuda(cudaMalloc((void**)&ddy, b.dy_bytes + 8), "cudaMalloc dy") &&
          check_cuda(cudaMalloc((void**)&ddx, b.dx_bytes + 2 * guard_bytes), "cudaMalloc dx") &&
          check_cuda(cudaMemcpy(ddy, b.dy, b.dy_bytes, cudaMemcpyHostToDevice), "copy dy") &&
          check_cuda(cudaMemcpy(ddx, b.dx_alloc, b.dx_bytes + 2 * guard_bytes, cudaMemcpyHostToDevice), "copy dx")) {
        /* Every other call through padtune_dispatch: both entry points run on the GPU. */
        const padtune_status st =
            k % 2 ? padtune_dispatch(PADTUNE_BACKEND_CUDA, ddy, ddx + guard_bytes, s.B, s.C, s.L, s.pl, s.pr,
                                     dtypes[d], stream)
                  : padtune_constant_pad1d_backward(ddy, ddx + guard_bytes, s.B, s.C, s.L, s.pl, s.pr, dtypes[d],
                                                    stream);
        CHECK(st == PADTUNE_OK, "cuda %s L=%lld: %s: %s", dtype_names[d], (long long)s.L, padtune_status_name(st),
              padtune_last_error());
        if (check_cuda(cudaStreamSynchronize(stream), "the padtune kernel") &&
            check_cuda(cudaMemcpy(b.dx_alloc, ddx, b.dx_bytes + 2 * guard_bytes, cudaMemcpyDeviceToHost),
                       "copy dx back"))
          check_result(&b, s, "cuda", dtype_names[d], elem_sizes[d]);
      }
      cudaFree(ddy);
      cudaFree(ddx);
      free_buffers(&b);
    }
  {
    const char* text = padtune_explain(8, 128, 1000, 7, 9, PADTUNE_F16, PADTUNE_BACKEND_CUDA);
    CHECK(text != NULL && strstr(text, "instantiation: constant_pad1d_backward__f16__") != NULL,
          "explain on the GPU says:\n%s", text ? text : padtune_last_error());
  }
  cudaStreamDestroy(stream);
  printf("GPU part: %d device(s), every dtype and shape matches the reference\n", device_count);
}

/* With no usable GPU the CUDA backend fails with a message, and does not crash. */
static void test_cuda_without_gpu(void) {
  float dy[24], dx[16];
  memset(dy, 0, sizeof dy);
  padtune_status st = padtune_dispatch(PADTUNE_BACKEND_CUDA, dy, dx, 2, 2, 4, 1, 1, PADTUNE_F32, NULL);
  CHECK(st != PADTUNE_OK && padtune_last_error()[0] != '\0', "CUDA backend with no GPU: %s, '%s'",
        padtune_status_name(st), padtune_last_error());
  printf("CUDA backend with no GPU: %s: %s\n", padtune_status_name(st), padtune_last_error());
  st = padtune_constant_pad1d_backward(dy, dx, 2, 2, 4, 1, 1, PADTUNE_F32, NULL);
  CHECK(st != PADTUNE_OK && padtune_last_error()[0] != '\0', "padtune_constant_pad1d_backward with no GPU: %s, '%s'",
        padtune_status_name(st), padtune_last_error());
  /* explain needs no device: it names the built-in default. */
  CHECK(padtune_explain(2, 2, 4, 1, 1, PADTUNE_F32, PADTUNE_BACKEND_CUDA) != NULL, "explain on cuda with no GPU: %s",
        padtune_last_error());
}

int main(int argc, char** argv) {
  if (argc > 1) rng_state = strtoull(argv[1], NULL, 0) | 1;
  printf("padtune C ABI %d, library %s, seed %#llx\n", padtune_api_version(), padtune_version(),
         (unsigned long long)rng_state);
  test_names_and_versions();
  test_host_dispatch();
  test_host_fill();
  test_errors();
  test_explain();
  test_threads();

  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e == cudaSuccess && devices > 0) {
    test_gpu(devices);
  } else {
    printf("GPU part skipped: no CUDA device (%s)\n", e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
    test_cuda_without_gpu();
  }

  if (failures) {
    fprintf(stderr, "c_abi_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("c_abi_test: all checks passed\n");
  return 0;
}
