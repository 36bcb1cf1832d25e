/* Calls the function @layer of ../c-caller.mlir, compiled ahead of time,
   through MLIR's C interface, and compares its result with a plain C
   computation of relu(w * x). Exits with 1 on a difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A rank-2 memref descriptor, as MLIR's C interface passes it. */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2;

void _mlir_ciface_layer(memref2 *result, memref2 *w, memref2 *x);

static memref2 make(int64_t rows, int64_t cols, float *data) {
  memref2 m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

int main(void) {
  enum { OUT = 256, IN = 128, BATCH = 256 };
  float *w = malloc(sizeof(float) * OUT * IN), *x = malloc(sizeof(float) * BATCH * IN);
  for (int i = 0; i < OUT * IN; ++i) w[i] = (float)((i * 7) % 13) - 6.0f;
  for (int i = 0; i < BATCH * IN; ++i) x[i] = (float)((i * 5) % 11) - 5.0f;
  memref2 W = make(OUT, IN, w), X = make(BATCH, IN, x), R;
  _mlir_ciface_layer(&R, &W, &X);
  double maxerr = 0;
  for (int b = 0; b < BATCH; ++b)
    for (int o = 0; o < OUT; ++o) {
      float acc = 0;
      for (int i = 0; i < IN; ++i) acc += w[o * IN + i] * x[b * IN + i];
      float want = acc > 0 ? acc : 0;
      float got = R.aligned[R.offset + b * R.strides[0] + o * R.strides[1]];
      double err = got > want ? got - want : want - got;
      if (err > maxerr) maxerr = err;
    }
  printf("result %lld x %lld, max error %g\n", (long long)R.sizes[0],
         (long long)R.sizes[1], maxerr);
  /* The result's buffer was allocated by the compiled code (malloc): the
     caller frees it, unless it is one of the caller's own buffers. */
  if (R.allocated != w && R.allocated != x) free(R.allocated);
  free(w);
  free(x);
  return maxerr == 0 ? 0 : 1;
}
