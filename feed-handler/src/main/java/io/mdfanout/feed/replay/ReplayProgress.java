package io.mdfanout.feed.replay;

/**
 * The one-line progress of a replay on a terminal: percent of the file read, messages per second
 * since the previous line, and the time left at the average pace so far. Built on the display
 * thread a few times a second, never on the message path.
 */
public final class ReplayProgress
{
    private final long fileSize;
    private final long startNs;
    private long lastNs;
    private long lastMessages;
    private int lastLength;

    /**
     * Start measuring.
     *
     * @param fileSize bytes of the file on disk.
     * @param nowNs    the start time, {@link System#nanoTime()}.
     */
    public ReplayProgress(final long fileSize, final long nowNs)
    {
        this.fileSize = fileSize;
        this.startNs = nowNs;
        this.lastNs = nowNs;
    }

    /**
     * The progress line for the current counters, without any terminal control.
     *
     * @param fileBytesRead bytes of the file read so far.
     * @param messages      messages decoded so far.
     * @param nowNs         {@link System#nanoTime()}.
     * @return e.g. {@code replay: 42.0% read, 1200000 msgs, 850000 msg/s, ETA 0:12}.
     */
    public String line(final long fileBytesRead, final long messages, final long nowNs)
    {
        final double fraction = fileSize <= 0 ? 1.0 : Math.min(1.0, (double)fileBytesRead / fileSize);
        final long intervalNs = Math.max(1, nowNs - lastNs);
        final long rate = (messages - lastMessages) * 1_000_000_000L / intervalNs;
        lastNs = nowNs;
        lastMessages = messages;

        final StringBuilder sb = new StringBuilder(96)
            .append("replay: ").append(String.format("%5.1f", fraction * 100)).append("% read, ")
            .append(messages).append(" msgs, ").append(rate).append(" msg/s, ETA ");
        final long elapsedNs = nowNs - startNs;
        if (fraction <= 0 || elapsedNs <= 0)
        {
            sb.append("--:--");
        }
        else
        {
            final long leftS = (long)(elapsedNs * (1 - fraction) / fraction / 1e9);
            sb.append(leftS / 60).append(':').append(String.format("%02d", leftS % 60));
        }
        return sb.toString();
    }

    /**
     * The line redrawn in place: a carriage return, the line, and spaces over what is left of a longer
     * previous line.
     *
     * @param fileBytesRead bytes of the file read so far.
     * @param messages      messages decoded so far.
     * @param nowNs         {@link System#nanoTime()}.
     * @return the text to print without a newline.
     */
    public String redraw(final long fileBytesRead, final long messages, final long nowNs)
    {
        final String line = line(fileBytesRead, messages, nowNs);
        final StringBuilder sb = new StringBuilder(line.length() + 8).append('\r').append(line);
        for (int i = line.length(); i < lastLength; i++)
        {
            sb.append(' ');
        }
        lastLength = line.length();
        return sb.toString();
    }
}
