package io.mdfanout.feed.handler;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A TCP server that accepts each connection and closes it at once: a GLIMPSE load that began and failed (the session
 * ended before its snapshot), which a starting feed handler does not try again, unlike a server it cannot reach.
 */
final class HangUpServer implements AutoCloseable
{
    private final ServerSocket socket;
    private final Thread acceptor;

    HangUpServer() throws IOException
    {
        socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() ->
        {
            while (!socket.isClosed())
            {
                try (Socket connection = socket.accept())
                {
                    connection.setSoLinger(true, 0);
                }
                catch (final IOException ignore)
                {
                    // closed: the test is over
                }
            }
        }, "hang-up-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port()
    {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
