"""Study-specific data (one folder per paper): claims tables and the like."""
