/* Master and workers (examples/mpi; docs/replay.md): rank 0 hands out TASKS tasks of B bytes,
 * one at a time to whichever worker asks next (MPI_Recv from MPI_ANY_SOURCE with MPI_ANY_TAG),
 * and stops each worker with a zero-length message of tag 2 when none are left.
 *   master_worker [TASKS [B]]   (default 64 tasks of 1024 bytes)
 * Messages: TASKS + W results (tag 1; the first W are the workers' hellos), TASKS tasks (tag 0),
 * W stops (tag 2), for W = ranks - 1 workers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int tasks = argc > 1 ? atoi(argv[1]) : 64, b = argc > 2 ? atoi(argv[2]) : 1024;
  if (size < 2 || tasks < 0 || b < 1) {
    if (rank == 0) fprintf(stderr, "usage: master_worker [TASKS>=0 [BYTES>=1]] on 2 or more ranks\n");
    MPI_Finalize();
    return 2;
  }
  char* buf = calloc((size_t)b, 1);
  if (rank == 0) {
    int next = 0, stopped = 0;
    long done = 0;
    while (stopped < size - 1) {
      MPI_Status s;
      MPI_Recv(buf, b, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
      done += buf[0];
      if (next < tasks) {
        memset(buf, next % 7, (size_t)b);
        MPI_Send(buf, b, MPI_CHAR, s.MPI_SOURCE, 0, MPI_COMM_WORLD);
        ++next;
      } else {
        MPI_Send(buf, 0, MPI_CHAR, s.MPI_SOURCE, 2, MPI_COMM_WORLD);
        ++stopped;
      }
    }
    printf("master_worker: %d tasks of %d bytes over %d workers, checksum %ld\n", tasks, b, size - 1, done);
  } else {
    buf[0] = 0;
    MPI_Send(buf, b, MPI_CHAR, 0, 1, MPI_COMM_WORLD);  /* hello: ready for a task */
    for (;;) {
      MPI_Status s;
      MPI_Recv(buf, b, MPI_CHAR, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
      if (s.MPI_TAG == 2) break;
      for (int k = 0; k < 1000 * (rank + 1); ++k) buf[k % b] = (char)(buf[k % b] + 1); /* uneven work */
      MPI_Send(buf, b, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
