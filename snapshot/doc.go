// SPDX-License-Identifier: Apache-2.0

// Package snapshot packs a forest into one portable file and unpacks it
// into a new forest: Part I of spec 07 (snapshots).
//
// A snapshot is a .forest file, a zip of:
//
//	forest.bundle        a git bundle (v2) of every ref, so the whole audit history travels
//	payloads/<path>      every local payload: *.db, *.sqlite, *.sqlite3 and every file under an _assets folder
//	README.txt           the two commands (unzip, then git clone forest.bundle) that open it without this program
//
// [Create] writes one; [Restore] reads one — or a bare bundle, the legacy
// metadata-only artifact — into a directory that does not exist yet (or is
// empty). Restore learns everything it can before it writes anything:
// the shape comes from the content, never the name; every member of the
// archive is named positively and checked, with the declared sizes summed
// against a ceiling, before the first byte is extracted; and it works in a
// scratch directory beside the target that becomes the forest by one
// rename only once bundle and payloads are in. A refused or failed restore
// leaves no forest behind.
//
// [CreateOptions].To sends the finished file on to a [Target]: file://
// ([FileTarget]) or s3:// ([S3Target], configured by the caller; this
// package reads no environment and no credential chain).
package snapshot
