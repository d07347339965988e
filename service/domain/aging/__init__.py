"""What happens to entries as they age: the tiers' rules, and the daily digests of
archived logs."""
