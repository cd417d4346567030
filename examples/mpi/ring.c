/* A ring with known message counts (examples/mpi; the replay tests): ROUNDS times, every rank
 * sends B bytes to rank+1 and receives from rank-1 (blocking Send on even ranks first, Recv on
 * odd ranks first, so it never deadlocks), then all ranks pass one token around the ring.
 *   ring [ROUNDS [B [unsafe]]]   (default 10 rounds of 64 bytes)
 * With "unsafe", every rank sends before it receives: it completes only while MPI buffers the
 * messages (eager), and its replay with a rendezvous threshold below B deadlocks (the tests). 
 * Messages: ROUNDS x ranks ring messages + ranks token messages, no collectives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 10, b = argc > 2 ? atoi(argv[2]) : 64;
  if (rounds < 0 || b < 0 || size < 2) {
    if (rank == 0) fprintf(stderr, "usage: ring [ROUNDS>=0 [BYTES>=0]] on 2 or more ranks\n");
    MPI_Finalize();
    return 2;
  }
  char* out = calloc((size_t)b + 1, 1);
  char* in = calloc((size_t)b + 1, 1);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int unsafe = argc > 3 && argv[3][0] == 'u';
  for (int r = 0; r < rounds; ++r) {
    if (rank % 2 == 0 || unsafe) {
      MPI_Send(out, b, MPI_CHAR, next, r, MPI_COMM_WORLD);
      MPI_Recv(in, b, MPI_CHAR, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, b, MPI_CHAR, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, b, MPI_CHAR, next, r, MPI_COMM_WORLD);
    }
  }
  int token = 0;
  if (rank == 0) {
    token = 1;
    MPI_Send(&token, 1, MPI_INT, next, 99, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("ring: %d ranks, %d rounds of %d bytes, token %d\n", size, rounds, b, token);
  } else {
    MPI_Recv(&token, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++token;
    MPI_Send(&token, 1, MPI_INT, next, 99, MPI_COMM_WORLD);
  }
  free(out), free(in);
  MPI_Finalize();
  return 0;
}
