/* A blocking raw HTTP/1.1 client for scripts/rpc-compare.sh: one keep-alive connection, one
 * prebuilt request sent whole with one write, the answer read with blocking reads and framed by
 * its Content-Length, call after call. It is to the HTTP servers (soapstone, gSOAP) what
 * omniORB's own client is to omniORB: a client that sleeps in `recv`, with no readiness loop of
 * its own, so the HTTP rows and the CORBA row carry the same kind of client
 * (`soapstone bench` is a tokio client: its own `epoll_wait` per call is in its rows).
 *
 *   blocking_http PORT PATH SOAPACTION BODY_FILE CALLS
 *
 * Times CALLS round trips after 2,000 of warm-up and prints the mean in microseconds. Exits 1
 * if an answer is not `200`, has no Content-Length, or the connection closes.
 */
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char req[1 << 16];
static char buf[1 << 20];

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t r = write(fd, p, n);
    if (r <= 0) return 0;
    p += r;
    n -= (size_t)r;
  }
  return 1;
}

/* The Content-Length of the head in buf[0..head_len), or -1. */
static long content_length(size_t head_len) {
  for (size_t i = 0; i + 15 < head_len; i++) {
    if ((i == 0 || buf[i - 1] == '\n') && strncasecmp(buf + i, "content-length:", 15) == 0)
      return strtol(buf + i + 15, NULL, 10);
  }
  return -1;
}

/* One answer: reads until its head and body are in; returns 0 on any failure. Nothing is left
 * over: the client sends the next request only after this answer. */
static int read_answer(int fd) {
  size_t got = 0, head_len = 0;
  long body = -1;
  for (;;) {
    if (got == sizeof buf) return 0;
    ssize_t r = read(fd, buf + got, sizeof buf - got);
    if (r <= 0) return 0;
    got += (size_t)r;
    if (head_len == 0) {
      for (size_t i = 3; i < got; i++) {
        if (buf[i - 3] == '\r' && buf[i - 2] == '\n' && buf[i - 1] == '\r' && buf[i] == '\n') {
          head_len = i + 1;
          break;
        }
      }
      if (head_len == 0) continue;
      if (strncmp(buf, "HTTP/1.1 200", 12) != 0 && strncmp(buf, "HTTP/1.0 200", 12) != 0) {
        fprintf(stderr, "blocking_http: not a 200: %.*s\n", (int)head_len, buf);
        return 0;
      }
      body = content_length(head_len);
      if (body < 0) {
        fprintf(stderr, "blocking_http: no content-length\n");
        return 0;
      }
    }
    if (got >= head_len + (size_t)body) return 1;
  }
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s PORT PATH SOAPACTION BODY_FILE CALLS\n", argv[0]);
    return 2;
  }
  int port = atoi(argv[1]);
  long calls = atol(argv[5]);
  FILE *f = fopen(argv[4], "rb");
  if (!f) {
    perror(argv[4]);
    return 2;
  }
  static char body[1 << 15];
  size_t body_len = fread(body, 1, sizeof body, f);
  fclose(f);
  /* Byte for byte the request `soapstone bench` sends (crates/bench/src/conn/http.rs), so
   * that both clients move the same bytes. */
  int head = snprintf(req, sizeof req,
                      "POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nuser-agent: soapstone-bench\r\n"
                      "content-type: text/xml; charset=utf-8\r\nsoapaction: \"%s\"\r\n"
                      "content-length: %zu\r\n\r\n",
                      argv[2], port, argv[3], body_len);
  if (head <= 0 || (size_t)head + body_len > sizeof req) return 2;
  memcpy(req + head, body, body_len);
  size_t req_len = (size_t)head + body_len;

  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    perror("connect");
    return 1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  long start = 0;
  for (long i = 0; i < 2000 + calls; i++) {
    if (i == 2000) start = now_ns();
    if (!write_all(fd, req, req_len) || !read_answer(fd)) {
      fprintf(stderr, "blocking_http: call %ld failed\n", i);
      return 1;
    }
  }
  printf("%.3f\n", (double)(now_ns() - start) / 1000.0 / (double)calls);
  return 0;
}
