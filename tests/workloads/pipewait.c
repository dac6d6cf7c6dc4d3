/* Blocks reading a pipe nobody writes: pure pipe/IPC off-CPU time.
 * Usage: pipewait [SECONDS]  (exits after SECONDS, default 60, via alarm). */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd[2];
    char c;
    if (pipe(fd) != 0)
        return 1;
    alarm(argc > 1 ? (unsigned)atoi(argv[1]) : 60);
    return read(fd[0], &c, 1) < 0;
}
