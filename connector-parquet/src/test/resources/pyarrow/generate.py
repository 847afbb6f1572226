"""Writes pyarrow.parquet: a file as pandas and pyarrow users write them, with the Arrow schema
embedded (ARROW:schema) and a dictionary (categorical) string column.

Run with pyarrow 18: python3 generate.py (writes next to this script).
"""

import datetime
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 300
categories = ["red", "green", "blue", None]
table = pa.table(
    {
        "id": pa.array(range(ROWS), type=pa.int64()),
        "category": pa.array(
            [categories[i % len(categories)] for i in range(ROWS)], type=pa.string()
        ).dictionary_encode(),
        "name": pa.array(
            [None if i % 7 == 0 else f"name-{i}" for i in range(ROWS)], type=pa.large_string()
        ),
        "ts": pa.array(
            [
                datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
                + datetime.timedelta(seconds=i * 3607, microseconds=i)
                for i in range(ROWS)
            ],
            type=pa.timestamp("us", tz="UTC"),
        ),
        "day": pa.array(
            [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in range(ROWS)],
            type=pa.date32(),
        ),
        "score": pa.array([i / 8 if i % 5 else None for i in range(ROWS)], type=pa.float64()),
    }
)
pq.write_table(
    table,
    pathlib.Path(__file__).with_name("pyarrow.parquet"),
    row_group_size=100,
    store_schema=True,
)
