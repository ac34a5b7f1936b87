package io.mdfanout.metrics;

import io.aeron.CncFileDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.MappedByteBuffer;

/**
 * A read-only view of a media driver's counters, mapped from the {@code cnc.dat} file of its
 * Aeron directory: works for an embedded driver and an external one alike, with no client
 * connection. Close to unmap.
 */
public final class CncCounters implements AutoCloseable
{
    private final MappedByteBuffer cncByteBuffer;
    private final CountersReader reader;

    private CncCounters(final MappedByteBuffer cncByteBuffer, final CountersReader reader)
    {
        this.cncByteBuffer = cncByteBuffer;
        this.reader = reader;
    }

    /**
     * Map the CnC file of an Aeron directory.
     *
     * @param aeronDirectoryName the driver's directory.
     * @return the mapped counters.
     * @throws IllegalStateException when the directory holds no CnC file of a compatible version.
     */
    public static CncCounters map(final String aeronDirectoryName)
    {
        final File cncFile = new File(aeronDirectoryName, CncFileDescriptor.CNC_FILE);
        if (!cncFile.isFile())
        {
            throw new IllegalStateException("no Aeron CnC file: " + cncFile);
        }
        final MappedByteBuffer buffer = IoUtil.mapExistingFile(cncFile, "cnc");
        try
        {
            final UnsafeBuffer metaData = CncFileDescriptor.createMetaDataBuffer(buffer);
            CncFileDescriptor.checkVersion(metaData.getInt(CncFileDescriptor.cncVersionOffset(0)));
            return new CncCounters(buffer, new CountersReader(
                CncFileDescriptor.createCountersMetaDataBuffer(buffer, metaData),
                CncFileDescriptor.createCountersValuesBuffer(buffer, metaData)));
        }
        catch (final RuntimeException ex)
        {
            IoUtil.unmap(buffer);
            throw new IllegalStateException("cannot read Aeron CnC file " + cncFile + ": " + ex.getMessage(), ex);
        }
    }

    /** @return the driver's counters. */
    public CountersReader reader()
    {
        return reader;
    }

    /** Unmap the file. */
    public void close()
    {
        IoUtil.unmap(cncByteBuffer);
    }
}
