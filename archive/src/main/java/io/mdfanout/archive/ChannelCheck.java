package io.mdfanout.archive;

import io.aeron.ChannelUri;
import io.aeron.CommonContext;
import io.aeron.driver.media.UdpChannel;
import io.mdfanout.wire.PortCheck;

/**
 * The archive's channels, checked before anything is created, as the media driver will read them: a channel whose
 * {@code interface} is not on this host, or whose port another process holds, is one line naming the option and
 * the channel (exit code 3). Found later, by the driver, such a channel is an error the archive retries on every
 * duty cycle (thousands of identical lines a second, until its error log is full) or a raw exception.
 */
final class ChannelCheck
{
    private ChannelCheck()
    {
    }

    /**
     * Check a channel the archive subscribes on (records from, or takes control requests on).
     *
     * @param option    the option naming the channel, for the message.
     * @param channel   the channel.
     * @param bindsPort whether the archive binds the endpoint's port itself (the control channel): then another
     *                  process must not hold it. A multicast group's port is shared, and not checked.
     * @throws IllegalArgumentException naming the option and the channel when the channel cannot work here.
     */
    static void subscription(final String option, final String channel, final boolean bindsPort)
    {
        final ChannelUri uri;
        try
        {
            uri = ChannelUri.parse(channel);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(option + " is not an Aeron channel: " + channel + " (" +
                ex.getMessage() + ")", ex);
        }
        if (!CommonContext.UDP_MEDIA.equals(uri.media()))
        {
            return;
        }
        final UdpChannel udp;
        try
        {
            udp = UdpChannel.parse(channel);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(option + " " + channel + " cannot be used on this host: " +
                rootMessage(ex), ex);
        }
        final String endpoint = uri.get(CommonContext.ENDPOINT_PARAM_NAME);
        if (bindsPort && !udp.isMulticast() && null != endpoint)
        {
            final int colon = endpoint.lastIndexOf(':');
            final String host = endpoint.substring(0, colon).replace("[", "").replace("]", "");
            PortCheck.udp(option + " " + channel, host, Integer.parseInt(endpoint.substring(colon + 1)));
        }
    }

    private static String rootMessage(final Throwable ex)
    {
        Throwable root = ex;
        while (null != root.getCause() && root.getCause() != root)
        {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}
