package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.internal.ColumnPredicates;
import dev.streamfusion.parquet.internal.FileRanges;
import dev.streamfusion.parquet.internal.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.utils.PartitionPathUtils;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Which files of a table are read, and their row groups: a file, or a directory read recursively
 * (names starting with {@code .} or {@code _} skipped, as Flink's file source skips them), the
 * files whose whole path matches a regular expression, in the partitions the planner kept; each
 * file split into the row groups its footer statistics do not rule out.
 */
@Internal
public final class FileListing implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String path;
    /** A regular expression whole file paths must match, or {@code null}. */
    private final String pathRegex;
    private final ColumnPredicates predicates;
    private final List<String> partitionKeys;
    private final String defaultPartitionName;
    /** The partitions to read (values as in paths, {@code null} for the default), or {@code null} for all. */
    private final HashSet<Map<String, String>> partitions;
    /** Whether local files, too, are read through Flink's file system (as other schemes are). */
    private final boolean throughFlink;

    public FileListing(
            String path,
            String pathRegex,
            ColumnPredicates predicates,
            List<String> partitionKeys,
            String defaultPartitionName,
            List<Map<String, String>> partitions,
            boolean throughFlink) {
        this.throughFlink = throughFlink;
        this.path = path;
        this.pathRegex = pathRegex;
        this.predicates = predicates;
        this.partitionKeys = new ArrayList<>(partitionKeys);
        this.defaultPartitionName = defaultPartitionName;
        this.partitions = partitions == null ? null : new HashSet<>(partitions);
    }

    /** A file a listing found: where it is read from, its length and modification time. */
    static final class ListedFile {
        final String location;
        final long length;
        /** Milliseconds since the epoch. */
        final long modificationTime;

        ListedFile(String location, long length, long modificationTime) {
            this.location = location;
            this.length = length;
            this.modificationTime = modificationTime;
        }

        @Override
        public String toString() {
            return location;
        }
    }

    /** The row groups of one file: those to read as splits, and how many there are and were pruned. */
    static final class Planned {
        final List<RowGroupSplit> splits = new ArrayList<>();
        long rowGroups;
        long prunedRowGroups;
    }

    /**
     * Lists the files to read (in path order) but those {@code known} (tested from this thread;
     * not changed here). Reads no file.
     *
     * @throws UncheckedIOException naming the path when it cannot be listed
     */
    List<ListedFile> files(Predicate<String> known) {
        List<ListedFile> found = new ArrayList<>();
        Pattern pattern = pathRegex == null ? null : Pattern.compile(pathRegex);
        try {
            Path given = new Path(path);
            FileSystem fs = given.getFileSystem();
            // Qualified, so that a relative path's depth compares with the listed files'.
            Path root = given.makeQualified(fs);
            FileStatus rootStatus;
            try {
                rootStatus = fs.getFileStatus(root);
            } catch (FileNotFoundException e) {
                if (partitionKeys.isEmpty()) {
                    throw e;
                }
                // Flink's filesystem source finds no partition under a missing path: no rows.
                return found;
            }
            List<FileStatus> files = new ArrayList<>();
            collect(fs, rootStatus, files, 0);
            files.sort(Comparator.comparing(status -> status.getPath().toString()));
            for (FileStatus file : files) {
                String location = location(file.getPath());
                String local = file.getPath().toUri().getPath();
                if (known.test(location)
                        || (pattern != null && !pattern.matcher(local).matches())
                        || !inPartitionsRead(partitionOf(root, file.getPath()))) {
                    continue;
                }
                found.add(new ListedFile(location, file.getLen(), file.getModificationTime()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the Parquet files of " + path + ": " + e.getMessage(), e);
        }
        return found;
    }

    /**
     * Reads the footer of {@code file}: its row groups, less those the predicates prune.
     *
     * @throws IOException when the file cannot be opened through Flink's file system
     * @throws RuntimeException naming the file when its footer cannot be read
     */
    Planned plan(ListedFile file) throws IOException {
        Planned planned = new Planned();
        long[] rows;
        try (FileRanges ranges = ranges(file.location, file.length)) {
            rows = NativeParquetReader.rowGroups(file.location, ranges, predicates);
        }
        for (int group = 0; group < rows.length; group++) {
            planned.rowGroups++;
            if (rows[group] < 0) {
                planned.prunedRowGroups++;
            } else {
                planned.splits.add(
                        new RowGroupSplit(file.location, group, rows[group], file.length, file.modificationTime, 0));
            }
        }
        return planned;
    }

    /** The rows the footers of the files to read count, in every row group. */
    public long rowCount() {
        FileListing all = withPredicates(ColumnPredicates.NONE);
        long rows = 0;
        try {
            for (ListedFile file : all.files(location -> false)) {
                for (RowGroupSplit split : all.plan(file).splits) {
                    rows += split.rows;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the Parquet files of " + path + ": " + e.getMessage(), e);
        }
        return rows;
    }

    /** Where a file is read from: a local path, or the URI of a file on another file system. */
    private static String location(Path file) {
        return FileRanges.isLocal(file.toString()) ? file.toUri().getPath() : file.toString();
    }

    /**
     * The ranges of a file ({@code length} bytes, as listed) read through Flink's file system, or
     * {@code null} for a local file the native reader opens itself.
     */
    public FileRanges ranges(String location, long length) throws IOException {
        return throughFlink || !FileRanges.isLocal(location) ? FileRanges.open(location, length) : null;
    }

    /**
     * The partition of {@code file} (values as in paths, {@code null} for the default), read from
     * the directories under {@code root} only (directories above it named {@code k=v} are no
     * partition of the table); {@code null} where the file lies in no partition directory of the
     * table ({@code root/k1=v1/.../kn=vn/...}, the keys in order), whose files Flink's filesystem
     * connector does not read. Empty for a table without partition keys.
     */
    private Map<String, String> partitionOf(Path root, Path file) {
        List<String> directories = new ArrayList<>();
        for (Path parent = file.getParent(); parent != null && parent.depth() > root.depth(); parent = parent.getParent()) {
            directories.add(0, parent.getName());
        }
        if (directories.size() < partitionKeys.size()) {
            return null;
        }
        Map<String, String> partition = new HashMap<>();
        for (int i = 0; i < partitionKeys.size(); i++) {
            String directory = directories.get(i);
            int equals = directory.indexOf('=');
            if (equals < 0 || !partitionKeys.get(i).equals(PartitionPathUtils.unescapePathName(directory.substring(0, equals)))) {
                return null;
            }
            String value = PartitionPathUtils.unescapePathName(directory.substring(equals + 1));
            partition.put(partitionKeys.get(i), defaultPartitionName.equals(value) ? null : value);
        }
        return partition;
    }

    /** Whether {@code partition} (see {@link #partitionOf}) is one this listing reads. */
    private boolean inPartitionsRead(Map<String, String> partition) {
        return partition != null && (partitions == null || partitions.contains(partition));
    }

    /**
     * {@code partition} (as the planner hands partitions back, possibly with directories above the
     * path named {@code k=v} among them) reduced to the table's partition keys, as Flink's
     * filesystem source reduces them.
     */
    private Map<String, String> ofKeys(Map<String, String> partition) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String key : partitionKeys) {
            String value = partition.get(key);
            values.put(key, value == null || defaultPartitionName.equals(value) ? null : value);
        }
        return values;
    }

    /**
     * The partitions under the path, values as in paths and {@code null} for the default
     * partition; empty for a table without partition keys.
     */
    public List<Map<String, String>> partitions() {
        List<Map<String, String>> found = new ArrayList<>();
        if (partitionKeys.isEmpty()) {
            return found;
        }
        try {
            Path root = new Path(path);
            for (var partition :
                    PartitionPathUtils.searchPartSpecAndPaths(root.getFileSystem(), root, partitionKeys.size())) {
                found.add(ofKeys(partition.f0));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the partitions of " + path + ": " + e.getMessage(), e);
        }
        return found;
    }

    /**
     * This listing, with the partitions it reads fixed: those under the path now where the planner
     * kept all (it applied no partition filter), as Flink's filesystem source fixes the
     * directories it watches at planning; itself where it reads kept partitions or the table has
     * no partition keys.
     */
    public FileListing withPartitionsFixed() {
        return partitions != null || partitionKeys.isEmpty() ? this : withPartitions(partitions());
    }

    /** This listing, reading only {@code kept} partitions. */
    public FileListing withPartitions(List<Map<String, String>> kept) {
        List<Map<String, String>> ofKeys = new ArrayList<>();
        kept.forEach(partition -> ofKeys.add(ofKeys(partition)));
        return new FileListing(path, pathRegex, predicates, partitionKeys, defaultPartitionName, ofKeys, throughFlink);
    }

    /** This listing, pruning row groups by {@code rowGroupPredicates}. */
    public FileListing withPredicates(ColumnPredicates rowGroupPredicates) {
        return new FileListing(
                path, pathRegex, rowGroupPredicates, partitionKeys, defaultPartitionName,
                partitions == null ? null : new ArrayList<>(partitions),
                throughFlink);
    }

    public ColumnPredicates predicates() {
        return predicates;
    }

    /**
     * Adds the files under {@code status}, {@code depth} levels below the root, skipping hidden
     * names ({@code .} or {@code _} first) where Flink's filesystem source skips them: it finds a
     * partitioned table's last-level partition directories without testing the names above them
     * (the root's, or {@code _a=1} in {@code _a=1/b=2}), then filters those and what lies below;
     * an unpartitioned table's root goes through the filter too.
     */
    private void collect(FileSystem fs, FileStatus status, List<FileStatus> files, int depth) throws IOException {
        String name = status.getPath().getName();
        if (depth >= partitionKeys.size() && (name.startsWith(".") || name.startsWith("_"))) {
            return;
        }
        if (!status.isDir()) {
            files.add(status);
            return;
        }
        for (FileStatus child : fs.listStatus(status.getPath())) {
            collect(fs, child, files, depth + 1);
        }
    }
}
