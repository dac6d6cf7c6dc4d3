# tcpxfer.py PORT SECS: a server and a client on 127.0.0.1:PORT sending
# data for SECS seconds (run inside a private network namespace).
import socket, sys, threading, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(4)
def serve():
    c, _ = srv.accept()
    while c.recv(65536):
        pass
threading.Thread(target=serve, daemon=True).start()
cl = socket.create_connection(("127.0.0.1", port))
buf = b"x" * 16384
t0 = time.time()
while time.time() - t0 < secs:
    cl.sendall(buf)
    time.sleep(0.001)
cl.close()
