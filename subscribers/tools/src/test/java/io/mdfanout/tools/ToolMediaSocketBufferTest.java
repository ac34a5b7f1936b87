package io.mdfanout.tools;

import io.aeron.driver.Configuration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A tool's embedded driver receives with 2 MiB socket buffers and window, unless Aeron's own properties say otherwise:
 * an operator's choice, or a benchmark's lever (issue 38).
 */
class ToolMediaSocketBufferTest
{
    @Test
    void aeronsOwnPropertiesWinOverTheDefault()
    {
        try (ToolMedia media = ToolMedia.connect(null))
        {
            assertEquals(2 * 1024 * 1024, media.driverContext().socketRcvbufLength());
            assertEquals(2 * 1024 * 1024, media.driverContext().initialWindowLength());
        }
        System.setProperty(Configuration.SOCKET_RCVBUF_LENGTH_PROP_NAME, "4m");
        System.setProperty(Configuration.INITIAL_WINDOW_LENGTH_PROP_NAME, "4m");
        try (ToolMedia media = ToolMedia.connect(null))
        {
            assertEquals(4 * 1024 * 1024, media.driverContext().socketRcvbufLength());
            assertEquals(4 * 1024 * 1024, media.driverContext().initialWindowLength());
        }
        finally
        {
            System.clearProperty(Configuration.SOCKET_RCVBUF_LENGTH_PROP_NAME);
            System.clearProperty(Configuration.INITIAL_WINDOW_LENGTH_PROP_NAME);
        }
    }
}
