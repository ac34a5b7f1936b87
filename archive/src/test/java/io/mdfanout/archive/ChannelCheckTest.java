package io.mdfanout.archive;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The archive's channels checked before it starts: one line naming the option and what is wrong (issue 36). */
class ChannelCheckTest
{
    @Test
    void aChannelOnAnInterfaceThisHostLacksIsRefused()
    {
        // 192.0.2.0/24 is TEST-NET-1, on no host's interface.
        final String channel = "aeron:udp?endpoint=224.0.1.1:40456|interface=192.0.2.5|mtu=8192";
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> ChannelCheck.subscription("--channel", channel, false));
        assertTrue(ex.getMessage().startsWith("--channel " + channel + " cannot be used on this host: "), ex.getMessage());
        assertTrue(ex.getMessage().contains("192.0.2.5"), ex.getMessage());
        assertTrue(!ex.getMessage().contains("\n"), "one line");
    }

    @Test
    void aControlPortAnotherProcessHoldsIsRefused() throws Exception
    {
        try (DatagramChannel held = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final int port = ((InetSocketAddress)held.getLocalAddress()).getPort();
            final String channel = "aeron:udp?endpoint=127.0.0.1:" + port;
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> ChannelCheck.subscription("--control-channel", channel, true));
            assertTrue(ex.getMessage().startsWith("--control-channel " + channel + ": UDP port " + port), ex.getMessage());
        }
    }

    @Test
    void usableChannelsPass()
    {
        assertDoesNotThrow(() -> ChannelCheck.subscription(
            "--channel", "aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192", false));
        assertDoesNotThrow(() -> ChannelCheck.subscription("--control-channel", "aeron:udp?endpoint=127.0.0.1:0", true));
        assertDoesNotThrow(() -> ChannelCheck.subscription("--control-channel", "aeron:ipc", true));
    }
}
