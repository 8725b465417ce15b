// P2 (32, 256, 8192, 4, 4), 16-bit. Table: flatvec bo4096 t256.
using flatvec_4096 = shape_in::kernel<padtune::detail::flatvec_variant, __half, 4096, 256, 16>;
extern "C" int same_timer_flatvec_bo4096_t256_shape_in(SHAPE_IN_ARGS) { return shape_in::launch<flatvec_4096, false, 8192, 8192, 4, 4>(SHAPE_IN_PASS); }
