/* Test hooks that hold the run at a named point until the test lets it go. */
#ifndef PERFREPORT_TEST_PAUSE_H
#define PERFREPORT_TEST_PAUSE_H

/* When the environment variable `env` names a FIFO, blocks until a byte is
 * written to it (or every writer closed it).  The FIFO is opened O_RDWR, so
 * the open never waits and a test sees it among our fds as the sign that we
 * are paused.  Anything else (unset, not a FIFO, a symlink) is ignored. */
void test_pause(const char *env);
#endif
