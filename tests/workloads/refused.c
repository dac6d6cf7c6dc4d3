/* refused: a client that keeps connecting to a TCP port where nothing
 * listens (127.0.0.1:PORT), as a service retrying a dependency that is
 * down: every connect() fails with ECONNREFUSED.  At most RATE attempts a
 * second, paced in tens, so that the failing connects are about a third of
 * its calls (socket, connect, close); runs SECONDS.
 * Usage: refused [SECONDS] [RATE] [PORT] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 10, rate = argc > 2 ? atof(argv[2]) : 500;
    int port = argc > 3 ? atoi(argv[3]) : 9;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    double t0 = now_s();
    unsigned long n = 0;
    while (now_s() - t0 < secs) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return 1;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            return 3; /* something listens there: not the test's fault */
        close(fd);
        n++;
        /* paced in tens: a sleep per attempt would make the attempts a
         * quarter of its calls, on syscall.refused_pct's critical line */
        double ahead = (double)n / rate - (now_s() - t0);
        if (n % 10 == 0 && ahead > 0)
            usleep((useconds_t)(ahead * 1e6));
    }
    return 0;
}
