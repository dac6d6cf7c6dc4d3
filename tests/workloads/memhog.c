/* memhog MIB [SECONDS]: allocates and touches MIB MiB of anonymous memory
 * (1 MiB at a time), then holds it for SECONDS (default 5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: memhog MIB [SECONDS]\n");
        return 2;
    }
    long mib = atol(argv[1]);
    int hold = argc > 2 ? atoi(argv[2]) : 5;
    for (long i = 0; i < mib; i++) {
        char *p = malloc(1 << 20);
        if (!p)
            return 1;
        memset(p, (int)i, 1 << 20); /* touch every page */
    }
    sleep((unsigned)hold);
    return 0;
}
