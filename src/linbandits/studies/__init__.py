"""One subpackage per paper (a study); each declares STUDY (linbandits.study.Study)."""
