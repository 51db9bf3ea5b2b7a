"""Debates as jobs: run one by protocol name, resume, continue and fork it, and the app's background
worker. They read the store and the registry and run the engine."""
