"""The lane language: schema, loader, extends, expressions, patterns and the predicate kinds (kinds/)."""
