
BoutputJ(I(!>ßBš=ê‹½H#T¾À¤S=•®µ<W÷¾-rS=ætY¾ò`ÿ¼