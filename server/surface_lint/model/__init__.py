"""The vocabulary every layer speaks: findings, check codes, positions, severity. Imports nothing of ours."""
