/* A conjugate gradient solver for the 1D Laplacian (examples/mpi; docs/replay.md): the vector is
 * block-distributed, each iteration exchanges one boundary value with each neighbour
 * (MPI_Sendrecv) for the matrix-vector product and reduces two dot products with MPI_Allreduce.
 *   cg [N [ITERATIONS]]   (default 4096 unknowns per rank, 40 iterations)
 * Messages per iteration: 2 Sendrecv per inner rank (1 at the ends), 2 allreduces of 8 bytes. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double dot(const double* a, const double* b, int n) {
  double s = 0, g = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 4096, iters = argc > 2 ? atoi(argv[2]) : 40;
  if (n < 1 || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: cg [N>=1 [ITERATIONS>=1]]\n");
    MPI_Finalize();
    return 2;
  }
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  double *x = calloc(n, sizeof(double)), *r = malloc(n * sizeof(double)), *p = malloc(n * sizeof(double));
  double* q = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) r[i] = p[i] = 1.0;
  double rr = dot(r, r, n);
  for (int it = 0; it < iters && rr > 1e-20; ++it) {
    double lo = 0, hi = 0;  /* p's neighbours across the block edges */
    MPI_Sendrecv(&p[0], 1, MPI_DOUBLE, left, 0, &hi, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&p[n - 1], 1, MPI_DOUBLE, right, 1, &lo, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; ++i) q[i] = 2 * p[i] - (i > 0 ? p[i - 1] : lo) - (i + 1 < n ? p[i + 1] : hi);
    const double alpha = rr / dot(p, q, n);
    for (int i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * q[i];
    const double next = dot(r, r, n);
    for (int i = 0; i < n; ++i) p[i] = r[i] + next / rr * p[i];
    rr = next;
  }
  if (rank == 0) printf("cg: %d ranks, %d unknowns each, residual %.6g\n", size, n, sqrt(rr));
  free(x), free(r), free(p), free(q);
  MPI_Finalize();
  return 0;
}
