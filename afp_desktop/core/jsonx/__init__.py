"""JSON at any depth and size: orjson, the deep reader, the bracket scan, payloads kept lazily."""
