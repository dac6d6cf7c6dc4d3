/* udpsend: sends SIZE-byte datagrams to 127.0.0.1:PORT at RATE per second
 * (in bursts every 10 ms) for SECONDS.  Usage: udpsend PORT RATE SECONDS [SIZE] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    if (argc < 4) {
        fprintf(stderr, "usage: udpsend PORT RATE SECONDS [SIZE]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    double rate = atof(argv[2]), secs = atof(argv[3]);
    size_t size = argc > 4 ? (size_t)atol(argv[4]) : 200;
    if (size == 0 || size > 65000) {
        fprintf(stderr, "udpsend: SIZE out of range\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("socket");
        return 1;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char *buf = calloc(1, size);
    if (!buf)
        return 1;
    double t0 = now_s(), t;
    long sent = 0;
    while ((t = now_s()) - t0 < secs) {
        while ((double)sent < rate * (t - t0)) {
            /* a refused send (no reader yet) is counted as sent: the pace holds */
            sendto(fd, buf, size, 0, (struct sockaddr *)&a, sizeof a);
            sent++;
        }
        usleep(10000);
    }
    printf("%ld datagrams\n", sent);
    free(buf);
    return 0;
}
