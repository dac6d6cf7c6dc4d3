/* Four threads (main included) fight over one pthread mutex with short
 * critical sections that do real work, so most of each thread's time is
 * spent waiting for the lock.  Usage: mutexfight [SECONDS]
 *
 * contend_on_lock() calls the mutex through take_lock(): with frame-pointer
 * unwinding, the frame of the caller of a libc function without frame
 * pointers is skipped (its return address sits in libc's frame), so the
 * wrapper keeps contend_on_lock visible in the waiting user stack. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long shared;
static time_t end;

static void __attribute__((noinline)) take_lock(void) { pthread_mutex_lock(&lock); }

static void __attribute__((noinline)) contend_on_lock(void)
{
    take_lock();
    for (int i = 0; i < 20000; i++) /* ~10-20 us of work inside the lock */
        shared += (unsigned long)i ^ shared;
    pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
    (void)arg;
    while (time(NULL) < end)
        contend_on_lock();
    return NULL;
}

int main(int argc, char **argv)
{
    end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 60);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    worker(NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return 0;
}
