/* udpsink: receives datagrams on 127.0.0.1:PORT with a receive buffer of
 * RCVBUF bytes (0: the default), sleeping DELAY_US after each one, for
 * SECONDS.  A slow reader with a small buffer overflows it.
 * Usage: udpsink PORT RCVBUF DELAY_US SECONDS */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: udpsink PORT RCVBUF DELAY_US SECONDS\n");
        return 2;
    }
    int port = atoi(argv[1]), rcvbuf = atoi(argv[2]);
    long delay = atol(argv[3]);
    time_t end = time(NULL) + atoi(argv[4]);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("socket");
        return 1;
    }
    if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0) {
        perror("SO_RCVBUF");
        return 1;
    }
    struct timeval tv = {0, 200000}; /* wake up to see the end */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("bind");
        return 1;
    }
    char buf[65536];
    long n = 0;
    while (time(NULL) < end) {
        if (recv(fd, buf, sizeof buf, 0) > 0) {
            n++;
            if (delay > 0)
                usleep((useconds_t)delay);
        }
    }
    printf("%ld datagrams\n", n);
    return 0;
}
