package dev.streamfusion.e2e;

import javax.imageio.ImageIO;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Stock Flink and StreamFusion measured side by side in one run: a table of the figures and a
 * chart of their ratios (StreamFusion's speed over stock Flink's; above 1 is faster).
 */
final class Figures {

    /** One measurement of both. */
    private static final class Figure {
        final String what;
        final String unit;
        final double stock;
        final double streamfusion;
        final double ratio;

        Figure(String what, String unit, double stock, double streamfusion, double ratio) {
            this.what = what;
            this.unit = unit;
            this.stock = stock;
            this.streamfusion = streamfusion;
            this.ratio = ratio;
        }
    }

    private final List<Figure> figures = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    /** Rates (higher is faster), such as rows per second. */
    void rate(String what, String unit, double stock, double streamfusion) {
        figures.add(new Figure(what, unit, stock, streamfusion, streamfusion / stock));
    }

    /** A line printed under the table, saying why the last figure is what it is. */
    void note(String why) {
        notes.add(figures.get(figures.size() - 1).what + ": " + why);
    }

    /** Run times in milliseconds (lower is faster). */
    void runTime(String what, long stockMillis, long streamfusionMillis) {
        figures.add(new Figure(what, "ms", stockMillis, streamfusionMillis, (double) stockMillis / streamfusionMillis));
    }

    void printTable(PrintStream out) {
        int width = figures.stream().mapToInt(f -> f.what.length()).max().orElse(10);
        String row = "  %-" + width + "s %16s %16s  %-6s %7s%n";
        out.printf(row, "", "stock Flink", "StreamFusion", "", "ratio");
        for (Figure f : figures) {
            out.printf(
                    Locale.ROOT,
                    row,
                    f.what,
                    String.format(Locale.ROOT, "%,.0f", f.stock),
                    String.format(Locale.ROOT, "%,.0f", f.streamfusion),
                    f.unit,
                    String.format(Locale.ROOT, "%.2fx", f.ratio));
        }
        notes.forEach(note -> out.println("  " + note));
    }

    /** A horizontal bar per figure, its length the ratio, with the line of parity at 1x. */
    void writeChart(Path file, String title) throws IOException {
        int rowHeight = 30;
        int labelWidth = 330;
        int plotWidth = 520;
        int top = 60;
        int height = top + rowHeight * figures.size() + 50;
        int width = labelWidth + plotWidth + 90;
        double max = Math.max(2, Math.ceil(figures.stream().mapToDouble(f -> f.ratio).max().orElse(1)));
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.DARK_GRAY);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString(title, 16, 28);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.drawString("StreamFusion's speed over stock Flink's (same machine, same run; right of 1x is faster)", 16, 46);
            for (int i = 0; i < figures.size(); i++) {
                Figure f = figures.get(i);
                int y = top + i * rowHeight;
                int bar = (int) Math.round(plotWidth * Math.min(f.ratio, max) / max);
                g.setColor(f.ratio >= 1 ? new Color(46, 125, 50) : new Color(198, 40, 40));
                g.fillRect(labelWidth, y + 6, Math.max(bar, 1), rowHeight - 12);
                g.setColor(Color.DARK_GRAY);
                g.drawString(f.what, 16, y + rowHeight / 2 + 5);
                g.drawString(String.format(Locale.ROOT, "%.2fx", f.ratio), labelWidth + bar + 6, y + rowHeight / 2 + 5);
            }
            int axis = top + rowHeight * figures.size() + 4;
            g.setColor(Color.GRAY);
            g.drawLine(labelWidth, top, labelWidth, axis);
            for (int tick = 0; tick <= max; tick++) {
                int x = labelWidth + (int) Math.round(plotWidth * tick / max);
                g.drawString(tick + "x", x - 6, axis + 16);
            }
            int parity = labelWidth + (int) Math.round(plotWidth / max);
            g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {5, 4}, 0));
            g.setColor(Color.BLACK);
            g.drawLine(parity, top - 4, parity, axis);
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
    }
}
