/* The blocking raw-TCP floor of scripts/rpc-compare.sh: the same bytes as soapstone's echoFloat
 * exchange, moved by blocking read/write on both sides (what omniORB's thread-per-connection
 * server and its client do), so the table can tell the cost of a readiness loop (tokio's
 * epoll_wait on both sides of `soapstone baseline tcp-pingpong` and `soapstone bench`) from a
 * server's own work.
 *
 *   blocking_pingpong server PORT UP DOWN         answer every UP bytes with DOWN bytes, a
 *                                                 process per connection, until killed
 *   blocking_pingpong client PORT UP DOWN CALLS   time CALLS round trips after 2,000 of
 *                                                 warm-up; prints the mean in microseconds
 *
 * With SPIN_US=N in its environment, either side busy-polls before each blocking read: it
 * looks for the first byte with a non-blocking recv for up to N microseconds, yielding the
 * CPU (sched_yield) between looks, as `soapstone serve --busy-poll-us` and the Client's
 * `busy_poll` do; the floor of what polling can save
 * (docs/performance.md, "Round seven, wakeups").
 */
#include <arpa/inet.h>
#include <sched.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];
static long spin_us; /* SPIN_US: 0, never poll */

static long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* Waits up to spin_us for a byte to read on fd, yielding between looks. */
static void busy_poll(int fd) {
  char one;
  for (long end = now_us() + spin_us;;) {
    if (recv(fd, &one, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 || now_us() >= end) return;
    sched_yield();
  }
}

/* Reads exactly n bytes; returns 0 at end of stream or on error. */
static int read_all(int fd, int n) {
  if (spin_us > 0) busy_poll(fd);
  for (int got = 0; got < n;) {
    ssize_t r = read(fd, buf + got, (size_t)(n - got));
    if (r <= 0) return 0;
    got += (int)r;
  }
  return 1;
}

static int write_all(int fd, int n) {
  for (int put = 0; put < n;) {
    ssize_t r = write(fd, buf + put, (size_t)(n - put));
    if (r <= 0) return 0;
    put += (int)r;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 5 || (strcmp(argv[1], "server") && (strcmp(argv[1], "client") || argc < 6))) {
    fprintf(stderr, "usage: %s server PORT UP DOWN | client PORT UP DOWN CALLS\n", argv[0]);
    return 2;
  }
  int port = atoi(argv[2]), up = atoi(argv[3]), down = atoi(argv[4]), one = 1;
  if (up <= 0 || down <= 0 || up > (int)sizeof buf || down > (int)sizeof buf) {
    fprintf(stderr, "blocking_pingpong: sizes must be 1..%zu\n", sizeof buf);
    return 2;
  }
  memset(buf, 'x', sizeof buf);
  if (getenv("SPIN_US")) spin_us = atol(getenv("SPIN_US"));
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!strcmp(argv[1], "server")) {
    signal(SIGCHLD, SIG_IGN); /* no zombies */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l, (struct sockaddr *)&addr, sizeof addr) || listen(l, 64)) {
      perror("blocking_pingpong: listen");
      return 1;
    }
    for (;;) {
      int c = accept(l, NULL, NULL);
      if (c < 0) continue;
      setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (fork() == 0) {
        close(l);
        while (read_all(c, up) && write_all(c, down)) {
        }
        _exit(0);
      }
      close(c);
    }
  }
  long calls = atol(argv[5]);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (calls <= 0 || connect(c, (struct sockaddr *)&addr, sizeof addr)) {
    perror("blocking_pingpong: connect");
    return 1;
  }
  setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  for (int i = 0; i < 2000; i++)
    if (!write_all(c, up) || !read_all(c, down)) return 1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < calls; i++)
    if (!write_all(c, up) || !read_all(c, down)) {
      fprintf(stderr, "blocking_pingpong: connection lost\n");
      return 1;
    }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
  printf("%.3f\n", ns / 1e3 / (double)calls);
  return 0;
}
