/* A 2D Jacobi halo-exchange stencil (examples/mpi; docs/replay.md). The ranks form the most
 * square px x py grid; each owns an n x n block of doubles and, every iteration, exchanges its four
 * edges with its neighbours (non-blocking, periodic), then updates its block and, every R
 * iterations (the third argument, default 10; 0 = never), reduces the residual with MPI_Allreduce.
 *   halo_stencil [N [ITERATIONS [R]]]   (default 64 x 64 cells per rank, 50 iterations, R = 10)
 * Messages: 4 halo messages of 8N bytes per rank per iteration, ITERATIONS/R allreduces. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 64, iters = argc > 2 ? atoi(argv[2]) : 50;
  const int every = argc > 3 ? atoi(argv[3]) : 10;
  if (n < 1 || iters < 1 || every < 0) {
    if (rank == 0) fprintf(stderr, "usage: halo_stencil [N>=1 [ITERATIONS>=1 [R>=0]]]\n");
    MPI_Finalize();
    return 2;
  }
  int py = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) py = d;
  const int px = size / py, x = rank % px, y = rank / px;
  const int west = (x + px - 1) % px + y * px, east = (x + 1) % px + y * px;
  const int north = x + ((y + py - 1) % py) * px, south = x + ((y + 1) % py) * px;
  const int w = n + 2;
  double* u = calloc((size_t)w * w, sizeof(double));
  double* v = calloc((size_t)w * w, sizeof(double));
  double *sendw = malloc(n * sizeof(double)), *sende = malloc(n * sizeof(double));
  double *recvw = malloc(n * sizeof(double)), *recve = malloc(n * sizeof(double));
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) u[i * w + j] = (double)((rank * 31 + i * 7 + j) % 100);
  double residual = 0;
  for (int it = 0; it < iters; ++it) {
    MPI_Request r[8];
    for (int i = 0; i < n; ++i) sendw[i] = u[(i + 1) * w + 1], sende[i] = u[(i + 1) * w + n];
    MPI_Irecv(&u[1], n, MPI_DOUBLE, north, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&u[(n + 1) * w + 1], n, MPI_DOUBLE, south, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(recvw, n, MPI_DOUBLE, west, 2, MPI_COMM_WORLD, &r[2]);
    MPI_Irecv(recve, n, MPI_DOUBLE, east, 3, MPI_COMM_WORLD, &r[3]);
    MPI_Isend(&u[n * w + 1], n, MPI_DOUBLE, south, 0, MPI_COMM_WORLD, &r[4]);
    MPI_Isend(&u[1 * w + 1], n, MPI_DOUBLE, north, 1, MPI_COMM_WORLD, &r[5]);
    MPI_Isend(sende, n, MPI_DOUBLE, east, 2, MPI_COMM_WORLD, &r[6]);
    MPI_Isend(sendw, n, MPI_DOUBLE, west, 3, MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; ++i) u[(i + 1) * w] = recvw[i], u[(i + 1) * w + n + 1] = recve[i];
    double local = 0;
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= n; ++j) {
        const double nv = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        local += (nv - u[i * w + j]) * (nv - u[i * w + j]);
        v[i * w + j] = nv;
      }
    double* t = u;
    u = v;
    v = t;
    if (every > 0 && it % every == every - 1) MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("halo_stencil: %d ranks (%dx%d), %dx%d cells each, %d iterations, residual %.6g\n", size, px,
                        py, n, n, iters, residual);
  free(u), free(v), free(sendw), free(sende), free(recvw), free(recve);
  MPI_Finalize();
  return 0;
}
