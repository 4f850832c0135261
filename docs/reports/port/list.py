import os,tomllib
root='server/tests/corpus'
for proj in sorted(os.listdir(root)):
    lt=os.path.join(root,proj,'labels.toml')
    if not os.path.exists(lt): continue
    lab=tomllib.load(open(lt,'rb'))
    for l in lab.get('loop',[]):
        if l.get('parallel'): print(os.path.join(root,proj,l['file']), l['line'])
