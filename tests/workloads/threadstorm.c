/* threadstorm N SECONDS: N sleeping threads (small stacks) for SECONDS, to
 * check perfreport's bounds on a host with very many tasks.  Prints "ready"
 * on stdout once all threads exist. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned g_seconds;

static void *sleeper(void *arg)
{
    (void)arg;
    sleep(g_seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: threadstorm N SECONDS\n");
        return 2;
    }
    int n = atoi(argv[1]);
    g_seconds = (unsigned)atoi(argv[2]);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    int made = 0;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, &a, sleeper, NULL) != 0)
            break;
        pthread_detach(t);
        made++;
    }
    printf("ready %d\n", made);
    fflush(stdout);
    sleep(g_seconds + 1);
    return made == n ? 0 : 1;
}
