/* hangwalk THREADS PATH: THREADS threads each stat() PATH every 10 ms; prints
 * "ready" once all of them run.  On a mount that stops answering, every
 * thread blocks in its stat: the first one waiting for the file system's
 * reply, the others behind its lookup of the same name, in D state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *g_path;

static void *walker(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 10 * 1000 * 1000};
    for (;;) {
        struct stat st;
        (void)stat(g_path, &st);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hangwalk THREADS PATH\n");
        return 2;
    }
    int n = atoi(argv[1]);
    g_path = argv[2];
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, walker, NULL) != 0) {
            perror("hangwalk: pthread_create");
            return 1;
        }
    }
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
