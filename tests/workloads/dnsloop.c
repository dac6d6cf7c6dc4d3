/* getaddrinfo in a tight loop, for the DNS probe's cost per lookup
 * (bench/dns_bench.sh).  usage: dnsloop SECONDS [NAME]  (NAME default
 * "localhost": answered from /etc/hosts, no network).  Prints
 * "lookups N ns_per_call X". */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dnsloop SECONDS [NAME]\n");
        return 2;
    }
    double secs = atof(argv[1]);
    const char *name = argc > 2 ? argv[2] : "localhost";
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    unsigned long long n = 0;
    double t0 = now_s(), t = t0;
    while (t - t0 < secs) {
        for (int i = 0; i < 64; i++) {
            struct addrinfo *res = NULL;
            int rc = getaddrinfo(name, NULL, &hints, &res);
            if (rc != 0) {
                fprintf(stderr, "dnsloop: %s: %s\n", name, gai_strerror(rc));
                return 1;
            }
            freeaddrinfo(res);
            n++;
        }
        t = now_s();
    }
    printf("lookups %llu ns_per_call %.1f\n", n, (t - t0) * 1e9 / (double)n);
    return 0;
}
