"""Infrastructure shared by every part of rosenblatt: tuning constants, files, typing, input
validation and the words of its messages."""
