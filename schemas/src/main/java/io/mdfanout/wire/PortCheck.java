package io.mdfanout.wire;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;

/**
 * A role checks the ports it will listen on before it creates anything (rings, an Aeron directory, files): a port
 * another process holds is one line naming the option and the port, an {@link IllegalArgumentException} as for any
 * option's value that cannot work, which every role's option check reports with exit code {@link ExitCodes#CONFIG}
 * (not a raw {@code BindException} after half a start, exit code 1).
 * <p>
 * The check binds the port and lets it go again, as the role's own bind will do a moment later; a process that
 * takes the port in between still makes the role's bind fail, as before.
 */
public final class PortCheck
{
    private PortCheck()
    {
    }

    /**
     * Check that a TCP port can be listened on.
     *
     * @param option the option that names the port, for the message (e.g. {@code --metrics-port}).
     * @param host   the address bound (0.0.0.0: every interface).
     * @param port   the port; 0 (any free port) is not checked.
     * @throws IllegalArgumentException when the port is held or the address is not this host's.
     */
    public static void tcp(final String option, final String host, final int port)
    {
        if (0 == port)
        {
            return;
        }
        final InetSocketAddress address = address(option, host, port);
        try (ServerSocketChannel channel = ServerSocketChannel.open())
        {
            // As the HTTP and GLIMPSE servers bind: a port left in TIME_WAIT is free, one listened on is not.
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            bind(option, "TCP", address, channel);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(option + ": cannot open a TCP socket: " + ex.getMessage(), ex);
        }
    }

    /**
     * Check that a UDP port can be bound (a unicast one: a multicast group's port is shared by design).
     *
     * @param option the option that names the port, for the message (e.g. {@code --retransmit-port}).
     * @param host   the address bound (0.0.0.0: every interface).
     * @param port   the port; 0 (any free port) is not checked.
     * @throws IllegalArgumentException when the port is held or the address is not this host's.
     */
    public static void udp(final String option, final String host, final int port)
    {
        if (0 == port)
        {
            return;
        }
        final InetSocketAddress address = address(option, host, port);
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            bind(option, "UDP", address, channel);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(option + ": cannot open a UDP socket: " + ex.getMessage(), ex);
        }
    }

    private static void bind(
        final String option, final String protocol, final InetSocketAddress address, final NetworkChannel channel)
    {
        try
        {
            channel.bind(address);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(option + ": " + protocol + " port " + address.getPort() + " on " +
                address.getAddress().getHostAddress() + " cannot be bound: " + ex.getMessage() +
                " (another process holds it, or the address is not this host's)", ex);
        }
    }

    private static InetSocketAddress address(final String option, final String host, final int port)
    {
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException(option + " must be 0..65535: " + port);
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(option + ": " + host + " is not a known address", ex);
        }
    }
}
