"""Profiles recorded on a GPU and shipped with the course, for machines without one.

A file holds several :class:`~rooflinelib.profiling.profile_result.ProfileResult` records::

    {"format": "rooflinelib-profiles", "version": 1, "created": "...", "note": "...",
     "profiles": [<ProfileResult.to_dict()>, ...]}

``rooflinelib/data/h200_profiles_numba.json`` is the H200's (its provenance is in each
profile's ``device``; the script that made it is ``benchmarks/record_profiles.py``).
"""
from __future__ import annotations

import json
from pathlib import Path

from rooflinelib.store.fileio import read_json, write_atomic
from rooflinelib.profiling.profile_result import ProfileError, ProfileResult, from_dict
from rooflinelib.store.recorded import recorded_file

FORMAT = "rooflinelib-profiles"
VERSION = 1


def save_profiles(profiles, path, created: str, note: str = "") -> Path:
    body = {"format": FORMAT, "version": VERSION, "created": created, "note": note,
            "profiles": [p.to_dict() for p in profiles]}
    return write_atomic(path, json.dumps(body, indent=1, allow_nan=False) + "\n", ProfileError)


def load_profiles(path) -> dict:
    """``{name: ProfileResult}`` of a profiles file, every record checked."""
    data = read_json(path, ProfileError, "a profiles file")
    where = str(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProfileError(f"{where}: format: expected {FORMAT!r}")
    if data.get("version") != VERSION:
        raise ProfileError(f"{where}: version: expected {VERSION}, got {data.get('version')!r}")
    records = data.get("profiles")
    if not isinstance(records, list) or not records:
        raise ProfileError(f"{where}: profiles: must be a non-empty list")
    found = {}
    for i, record in enumerate(records):
        profile = from_dict(record, f"{where}: profiles[{i}]")
        if profile.name in found:
            raise ProfileError(f"{where}: profiles[{i}]: name {profile.name!r} appears twice")
        found[profile.name] = profile
    return found


def recorded_profiles(device: str = "h200", backend: str = "numba") -> dict:
    """The shipped profiles of ``device``, ``{name: ProfileResult}``; ProfileError if none."""
    path = recorded_file(f"{device}_profiles_{backend}.json")
    if not path.is_file():
        raise ProfileError(f"{path.name}: no recorded profiles for {device} with {backend}")
    return load_profiles(path)
