package io.mdfanout.feed.replay;

import java.io.IOException;
import java.io.InputStream;

/** Blocking reads of exact lengths, for the stream-framed readers. */
final class Streams
{
    private Streams()
    {
    }

    /**
     * Read up to {@code length} bytes, stopping early only at the end of the stream.
     *
     * @return the number of bytes read: {@code length}, or less at the end of the stream.
     */
    static int readFully(final InputStream in, final byte[] bytes, final int offset, final int length)
        throws IOException
    {
        int done = 0;
        while (done < length)
        {
            final int n = in.read(bytes, offset + done, length - done);
            if (n < 0)
            {
                break;
            }
            done += n;
        }
        return done;
    }

    /**
     * Skip exactly {@code length} bytes.
     *
     * @return false when the stream ended first.
     */
    static boolean skipFully(final InputStream in, final long length) throws IOException
    {
        long remaining = length;
        while (remaining > 0)
        {
            final long skipped = in.skip(remaining);
            if (skipped > 0)
            {
                remaining -= skipped;
            }
            else if (in.read() < 0) // skip may return 0 before the end: one read tells which
            {
                return false;
            }
            else
            {
                remaining--;
            }
        }
        return true;
    }
}
