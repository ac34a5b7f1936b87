/**
 * A partition's books and instrument state, kept by the partition's consumer thread in a
 * memory-mapped file that survives kill -9 (every store goes through an undo log), so a restarted
 * fanout resumes where it stopped and applies each ring record exactly once.
 */
package io.mdfanout.fanout.state;
